package dev.rota.agent.runtimes;

import dev.rota.agent.tasks.Conduit;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agent.tasks.Supervisor;
import dev.rota.agent.tasks.Task;
import dev.rota.agentapi.DiskToken;
import dev.rota.agentapi.LiveMove;
import dev.rota.agentapi.PinnedCertificates;
import dev.rota.agentapi.TaskTunnel;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live moves of the qemu runtime's VMs, on both workers: the task a VM leaves sends it ({@link
 * #leave}), the task it arrives at, started with {@link dev.rota.agentapi.TaskSpec#incoming}, waits
 * for it ({@link #arrive}) and takes the other agent's connections ({@link #incoming}).
 */
final class QemuMoves {
  private static final Logger log = LoggerFactory.getLogger(QemuMoves.class);

  /** How long a task waiting for its VM waits for the first of it before it gives up. */
  static final Duration FIRST_CONTACT = Duration.ofMinutes(2);

  /** How long a connection to the other agent may take to open. */
  private static final Duration DIAL = Duration.ofSeconds(10);

  /** How long the first connection may take: until the task there is ready for the VM. */
  private static final Duration READY = FIRST_CONTACT.plusSeconds(10);

  /** What a task's folder says of a VM that left it for another worker: that worker's name. */
  static final String MOVED = "moved";

  /** What a task's folder says while its VM leaves: the worker it goes to. */
  static final String MOVING = "moving";

  /** What a task's folder says of a VM that did not arrive: why. */
  static final String ARRIVAL_FAILURE = "arrival-failure";

  private final LiveMoves moves;

  /** One thread per direction of each connection carried, and per VM waited for. */
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "qemu-move");
            t.setDaemon(true);
            return t;
          });

  /** The tasks waiting for their VM: done once their QEMU takes connections for it. */
  private final Map<String, CompletableFuture<Void>> ready = new ConcurrentHashMap<>();

  /** The tasks that heard from the worker their VM leaves. */
  private final java.util.Set<String> contacted = ConcurrentHashMap.newKeySet();

  /** The tasks whose VM is leaving: one move at a time each. */
  private final java.util.Set<String> leaving = ConcurrentHashMap.newKeySet();

  /** This agent, as the agent a VM leaves reaches it. */
  private final CompletableFuture<AgentSelf> self;

  QemuMoves(Qmp qmp, CompletableFuture<AgentSelf> self) {
    this.moves = new LiveMoves(qmp);
    this.self = self;
  }

  /**
   * The socket the VM's QEMU connects to on the worker it leaves, for {@code channel}: no longer a
   * name than its console's, whose path's length the start checks.
   */
  private static Path relay(Path dir, String channel) {
    return GuestFiles.folder(dir)
        .resolve(channel.equals("memory") ? "out-mem.sock" : "out-nbd.sock");
  }

  /** Where the VM's disks are served for the mirrors, on the worker it arrives at. */
  private static Path disks(Path dir) {
    return GuestFiles.folder(dir).resolve("nbd.sock");
  }

  /**
   * Sends the running VM of {@code task} (its folder {@code dir}) to the task that waits for it on
   * another worker, and returns once that task has it; the VM's QEMU here is then paused for good,
   * its end left to the caller. A move that fails leaves the VM running here, and says why.
   */
  LiveMove leave(Task task, Path dir, LiveMove.Request to) throws Refusal, IOException {
    if (to == null
        || blank(to.worker())
        || blank(to.endpoint())
        || to.task() == null
        || !dev.rota.agent.tasks.TaskTable.TASK_ID.matcher(to.task()).matches()) {
      throw new Refusal(400, "worker, endpoint and task: where the VM moves");
    }
    URI endpoint;
    try {
      endpoint = URI.create(to.endpoint());
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "endpoint: " + e.getMessage());
    }
    if (!"https".equals(endpoint.getScheme()) && !"http".equals(endpoint.getScheme())
        || endpoint.getHost() == null) {
      throw new Refusal(400, "endpoint: an agent's https://host:port");
    }
    if (!leaving.add(task.id)) {
      throw new Refusal(409, "vm task " + task.id + " is moving already");
    }
    try {
      javax.net.ssl.SSLContext trust = PinnedCertificates.only(endpoint, to.certificateSha256());
      List<MoveRelay> relays = new ArrayList<>();
      try {
        for (String channel : LiveMove.CHANNELS) {
          relays.add(
              MoveRelay.listen(
                  relay(dir, channel),
                  () ->
                      TaskTunnel.dial(
                          endpoint,
                          trust,
                          to.token(),
                          TaskTunnel.incoming(to.task(), channel),
                          DIAL),
                  pumps));
        }
        Files.writeString(dir.resolve(MOVING), to.worker(), StandardCharsets.UTF_8);
        // The task there may still be fetching the image or making the disks: once this connection
        // is taken, it is ready for the mirrors, whose QEMU connects with a short deadline.
        TaskTunnel.dial(endpoint, trust, to.token(), TaskTunnel.incoming(to.task(), "disks"), READY)
            .close();
        LiveMoves.Sent sent =
            moves.send(
                GuestFiles.qmp(dir),
                dir,
                relay(dir, "disks"),
                relay(dir, "memory"),
                what -> log.debug("task {} moving to {}: {}", task.id, to.worker(), what));
        Files.writeString(dir.resolve(MOVED), to.worker(), StandardCharsets.UTF_8);
        return new LiveMove(to.worker(), sent.bytes(), sent.pausedMs());
      } catch (IOException e) {
        String why =
            relays.stream().map(MoveRelay::refused).filter(r -> r != null).findFirst().orElse(null);
        throw new IOException(
            "could not move to worker "
                + to.worker()
                + ", still running here: "
                + (why != null ? why : e.getMessage()),
            e);
      } finally {
        relays.forEach(MoveRelay::close);
        Files.deleteIfExists(dir.resolve(MOVING));
      }
    } finally {
      leaving.remove(task.id);
    }
  }

  /**
   * What the folder {@code dir} of a task says of its VM's move: {@code moving} (under way, or cut
   * short by an agent restart that has not settled it yet), {@code moved}, or null for none.
   */
  LiveMove.Outcome outcome(Path dir) {
    try {
      if (Files.exists(dir.resolve(MOVING))) {
        return new LiveMove.Outcome(LiveMove.Outcome.MOVING, null);
      }
      Path moved = dir.resolve(MOVED);
      if (Files.exists(moved)) {
        return new LiveMove.Outcome(
            LiveMove.Outcome.MOVED, Files.readString(moved, StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      // gone as it was read: the task says the rest
    }
    return null;
  }

  /**
   * Settles a move of {@code task}'s VM that an agent restart cut short (its relays went with the
   * agent, so the move failed or had just completed): true when the guest reached the other worker
   * (its QEMU here may end, the task saying where it went), else the guest runs on here.
   */
  boolean interrupted(Task task, Path dir) {
    Path moving = dir.resolve(MOVING);
    if (!Files.exists(moving)) {
      return false;
    }
    try {
      String worker = Files.readString(moving, StandardCharsets.UTF_8).strip();
      boolean left = moves.settle(GuestFiles.qmp(dir));
      if (left) {
        Files.writeString(dir.resolve(MOVED), worker, StandardCharsets.UTF_8);
      }
      Files.deleteIfExists(moving);
      log.info(
          "task {}: its move to worker {} was cut short by an agent restart; it {}",
          task.id,
          worker,
          left ? "had arrived there" : "runs on here");
      return left;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Settles {@code task}, adopted after an agent restart while it waited for its VM: the relays
   * that carried the VM went with the agent, so either it had arrived (its QEMU runs it: the task
   * runs), or it never will, and that QEMU is ended, the task failing: the VM runs on where it was.
   */
  void adoptedWaiting(Task task, Path dir, ProcessHandle process) {
    if (!task.spec.arrives() || Files.exists(dir.resolve(Supervisor.ARRIVED))) {
      return;
    }
    String status;
    try {
      status = moves.status(GuestFiles.qmp(dir));
    } catch (IOException e) {
      status = "unknown (" + e.getMessage() + ")";
    }
    try {
      if (status.equals("running") || status.equals("paused")) {
        if (status.equals("paused")) {
          moves.resume(GuestFiles.qmp(dir)); // it had all arrived, not yet run
        }
        Files.writeString(dir.resolve(Supervisor.ARRIVED), "", StandardCharsets.UTF_8);
        task.running(java.time.Instant.now());
        log.info("task {}: its VM had arrived before the agent restarted", task.id);
        return;
      }
      Files.writeString(
          dir.resolve(ARRIVAL_FAILURE),
          "the agent restarted while it arrived (its QEMU was " + status + ")",
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      // the task fails all the same, saying less
    }
    log.info("task {}: its VM had not arrived when the agent restarted; ending it", task.id);
    process.destroyForcibly();
  }

  /** Whether the VM of {@code task} is leaving: it cannot be suspended meanwhile. */
  boolean leaving(Task task) {
    return leaving.contains(task.id);
  }

  /**
   * Notes that {@code task}, just started, waits for its VM: the other agent's connections wait for
   * its QEMU to be ready rather than be refused.
   */
  void expect(Task task) {
    ready.put(task.id, new CompletableFuture<>());
  }

  /** Whether {@code task} waits for its VM, which has not arrived yet. */
  boolean awaiting(Task task) {
    return ready.containsKey(task.id);
  }

  /** Forgets what was kept for {@code task}, which has ended. */
  void ended(Task task) {
    CompletableFuture<Void> taking = ready.remove(task.id);
    if (taking != null) {
      taking.completeExceptionally(new IOException("its task ended"));
    }
    contacted.remove(task.id);
  }

  /**
   * Readies the QEMU just started for {@code task} with {@code -incoming defer} to take its VM,
   * then waits, on a thread of its own, for the VM to arrive and runs it. A VM that does not arrive
   * (nothing heard within {@link #FIRST_CONTACT}, or a move that failed) ends the task, saying why:
   * the VM runs on where it was.
   */
  void arrive(Task task, Path dir, BooleanSupplier alive, Runnable end) {
    CompletableFuture<Void> taking =
        ready.computeIfAbsent(task.id, id -> new CompletableFuture<>());
    String[] gaveUp = {null};
    pumps.execute(
        () -> {
          try {
            moves.await(GuestFiles.qmp(dir), dir, disks(dir), GuestFiles.incoming(dir), alive);
            taking.complete(null);
            dev.rota.agentapi.DiskSpec disk = task.spec.disk();
            BooleanSupplier leaving = () -> true;
            if (disk != null && disk.from() != null) {
              try {
                send(task, disk.from(), disk.id()); // the move done, or why not
              } catch (Unanswered e) {
                // The other agent had the request, and its answer was lost: the move may have
                // gone through. Ending this QEMU now could end the only copy of the guest; this
                // QEMU and the other agent, asked again, say how it ended.
                log.info(
                    "task {}: {}; asking it again how the move ended", task.id, e.getMessage());
                leaving = askingAgain(task, disk.from(), disk.id(), gaveUp);
              }
            }
            long firstBy = System.nanoTime() + FIRST_CONTACT.toNanos();
            BooleanSupplier stillComing = leaving;
            BooleanSupplier waiting =
                () -> {
                  if (!contacted.contains(task.id) && System.nanoTime() > firstBy) {
                    gaveUp[0] =
                        "nothing came from the worker it leaves in "
                            + FIRST_CONTACT.toMinutes()
                            + " minutes";
                    return false;
                  }
                  return stillComing.getAsBoolean() && alive.getAsBoolean();
                };
            moves.arrived(
                GuestFiles.qmp(dir),
                waiting,
                LiveMoves.MIRROR_DEADLINE.plus(SavedMemory.TRANSFER_DEADLINE));
            Files.writeString(dir.resolve(Supervisor.ARRIVED), "", StandardCharsets.UTF_8);
            task.running(java.time.Instant.now());
            log.info("task {}: its VM arrived", task.id);
          } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
              Thread.currentThread().interrupt();
            }
            taking.completeExceptionally(e);
            String why = gaveUp[0] != null ? gaveUp[0] : String.valueOf(e.getMessage());
            log.info("task {}: its VM did not arrive: {}", task.id, why);
            try {
              Files.writeString(dir.resolve(ARRIVAL_FAILURE), why, StandardCharsets.UTF_8);
            } catch (IOException ignored) {
              // the task is going anyway
            }
            end.run();
          } finally {
            ready.remove(task.id);
            contacted.remove(task.id);
          }
        });
  }

  /** How often a task whose move's answer was lost asks the other agent again. */
  private static final Duration ASK_AGAIN = Duration.ofSeconds(2);

  /**
   * While a task whose move's answer was lost waits on its QEMU: false, with why in {@code gaveUp},
   * once the agent of {@code from} says the VM can no longer come (it runs on there, or nothing
   * there has it twice in a row). An agent that does not answer may be restarting: it is asked
   * again.
   */
  private BooleanSupplier askingAgain(
      Task task, dev.rota.agentapi.DiskSource from, String id, String[] gaveUp) {
    long[] next = {0};
    int[] gone = {0};
    return () -> {
      if (System.nanoTime() < next[0]) {
        return true;
      }
      next[0] = System.nanoTime() + ASK_AGAIN.toNanos();
      LiveMove.Outcome outcome;
      try {
        outcome = outcome(task, from, id);
      } catch (IOException e) {
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      gone[0] = outcome.state().equals(LiveMove.Outcome.GONE) ? gone[0] + 1 : 0;
      if (outcome.state().equals(LiveMove.Outcome.STAYS)) {
        gaveUp[0] = "worker " + from.worker() + " says the move failed: the VM runs on there";
      } else if (gone[0] >= 2) {
        gaveUp[0] = "worker " + from.worker() + " no longer runs the VM, and did not send it here";
      }
      return gaveUp[0] == null;
    };
  }

  /**
   * Asks the agent of {@code from}, where the VM runs, to send it here to {@code task}, with the
   * controller's token for the VM's disk {@code id} there and a token of this agent's own for the
   * arrival; returns once it is sent, or says why it was not.
   */
  private void send(Task task, dev.rota.agentapi.DiskSource from, String id)
      throws IOException, InterruptedException {
    AgentSelf me = self(from);
    Duration patience = LiveMoves.MIRROR_DEADLINE.plus(SavedMemory.TRANSFER_DEADLINE);
    String token =
        DiskToken.mint(
            me.secret(),
            DiskToken.incoming(task.id),
            java.time.Instant.now().plus(patience).getEpochSecond());
    java.net.http.HttpResponse<String> answer;
    try {
      answer =
          call(
              from,
              "/v1/disks/" + id + "/move",
              patience,
              post ->
                  post.header("Content-Type", "application/json")
                      .POST(
                          java.net.http.HttpRequest.BodyPublishers.ofString(
                              json.writeValueAsString(
                                  new LiveMove.Request(
                                      me.worker(),
                                      me.endpoint(),
                                      task.id,
                                      me.secret() == null ? null : token,
                                      me.certificateSha256())))));
    } catch (java.net.ConnectException | java.net.http.HttpConnectTimeoutException e) {
      throw new IOException("worker " + from.worker() + " could not be reached: " + e.getMessage());
    } catch (IOException e) {
      throw new Unanswered(
          "worker " + from.worker() + " did not answer the move: " + e.getMessage());
    }
    if (answer.statusCode() != 200) {
      throw new IOException(
          "worker " + from.worker() + " answered " + answer.statusCode() + ": " + detail(answer));
    }
  }

  /** What the agent of {@code from} says of the move of the VM keeping disk {@code id} here. */
  private LiveMove.Outcome outcome(Task task, dev.rota.agentapi.DiskSource from, String id)
      throws IOException, InterruptedException {
    String worker = self(from).worker();
    java.net.http.HttpResponse<String> answer =
        call(
            from,
            "/v1/disks/"
                + id
                + "/move?worker="
                + java.net.URLEncoder.encode(worker, StandardCharsets.UTF_8),
            ASK_AGAIN.multipliedBy(3),
            java.net.http.HttpRequest.Builder::GET);
    if (answer.statusCode() != 200) {
      throw new IOException(
          "worker " + from.worker() + " answered " + answer.statusCode() + ": " + detail(answer));
    }
    LiveMove.Outcome outcome = json.readValue(answer.body(), LiveMove.Outcome.class);
    log.debug("task {}: worker {} says the move is {}", task.id, from.worker(), outcome.state());
    return outcome;
  }

  private AgentSelf self(dev.rota.agentapi.DiskSource from) throws IOException {
    if (from.endpoint() == null) {
      throw new IOException("worker " + from.worker() + " is no longer registered");
    }
    AgentSelf me = self.getNow(null);
    if (me == null) {
      throw new IOException("this agent is not serving yet");
    }
    return me;
  }

  /** A request to the agent of {@code from}, over its pinned TLS with the controller's token. */
  private static java.net.http.HttpResponse<String> call(
      dev.rota.agentapi.DiskSource from, String path, Duration patience, Request request)
      throws IOException, InterruptedException {
    URI uri = URI.create(from.endpoint() + path);
    java.net.http.HttpClient.Builder client =
        java.net.http.HttpClient.newBuilder().connectTimeout(DIAL);
    javax.net.ssl.SSLContext tls = PinnedCertificates.only(uri, from.certificateSha256());
    if (tls != null) {
      client.sslContext(tls);
    }
    java.net.http.HttpRequest.Builder builder =
        request.with(java.net.http.HttpRequest.newBuilder(uri).timeout(patience));
    if (from.token() != null) {
      builder.header("Authorization", "Bearer " + from.token());
    }
    java.net.http.HttpClient http = client.build();
    try {
      return http.send(builder.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    } finally {
      // A client no longer reachable closes its connections, even one a call still waits on.
      java.lang.ref.Reference.reachabilityFence(http);
    }
  }

  /** The rest of a request to another agent: its method and body. */
  private interface Request {
    java.net.http.HttpRequest.Builder with(java.net.http.HttpRequest.Builder builder)
        throws IOException;
  }

  private String detail(java.net.http.HttpResponse<String> answer) {
    String why = answer.body();
    try {
      return json.readTree(why).path("detail").asText(why);
    } catch (IOException notJson) {
      return why;
    }
  }

  private final com.fasterxml.jackson.databind.ObjectMapper json =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** A move asked of the worker a VM leaves whose answer was lost: it may have gone through. */
  private static final class Unanswered extends IOException {
    Unanswered(String message) {
      super(message);
    }
  }

  /**
   * A connection from the worker the VM of {@code task} leaves, to its QEMU here: for its memory,
   * or for one of its disks.
   */
  Conduit incoming(Task task, Path dir, String channel) throws Refusal, IOException {
    if (!task.spec.arrives()) {
      throw new Refusal(409, "vm task " + task.id + " does not wait for a VM to arrive");
    }
    if (!LiveMove.CHANNELS.contains(channel)) {
      throw new Refusal(404, "a VM arrives by " + LiveMove.CHANNELS + ", not " + channel);
    }
    CompletableFuture<Void> taking = ready.get(task.id);
    if (taking == null) {
      throw new Refusal(409, "vm task " + task.id + " is not waiting for its VM");
    }
    try {
      // It may still be fetching its image or making its disks.
      taking.get(FIRST_CONTACT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new Refusal(
          409, "vm task " + task.id + " cannot take its VM: " + e.getCause().getMessage());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new Refusal(409, "vm task " + task.id + " was not ready for its VM in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(503, "the agent is stopping");
    }
    contacted.add(task.id);
    return Conduit.unix(channel.equals("memory") ? GuestFiles.incoming(dir) : disks(dir), () -> {});
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
