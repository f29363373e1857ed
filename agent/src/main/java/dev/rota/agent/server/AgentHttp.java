package dev.rota.agent.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.link.ControllerClock;
import dev.rota.agent.tasks.Conduit;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agent.tasks.Task;
import dev.rota.agent.tasks.TaskLogs;
import dev.rota.agent.tasks.TaskRuntime;
import dev.rota.agent.tasks.TaskTable;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskStarts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * The agent API (docs/agent.md): {@code GET /healthz}, {@code GET|POST /v1/tasks}, {@code
 * PUT|DELETE /v1/tasks/{id}}, {@code POST /v1/tasks/{id}/suspend|pause|continue}, {@code GET
 * /v1/tasks/{id}/logs}, {@code DELETE /v1/logs/{vm}}, {@code POST /v1/removals}.
 */
public final class AgentHttp {
  static final int MAX_BODY = 1024 * 1024;

  /** The offset a log read ends at: the next read asks {@code from} it. */
  static final String LOG_NEXT = dev.rota.agentapi.LogHeaders.NEXT;

  /** {@code true} while the task may still write. */
  static final String LOG_LIVE = dev.rota.agentapi.LogHeaders.LIVE;

  public static final String NODELAY = "sun.net.httpserver.nodelay";

  /** Seconds an idle connection is kept open; the JDK's server closes it after 30. */
  public static final String IDLE_SECONDS = "sun.net.httpserver.idleInterval";

  private final HttpServer server;
  private final TaskTable tasks;
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AgentHttp.class);
  private final PortTunnels tunnels;

  /** The persistent disks it holds; null without the qemu runtime. */
  private final dev.rota.agent.runtimes.PersistentDisks disks;

  /** Snapshots of its persistent disks; null without the qemu runtime. */
  private final dev.rota.agent.runtimes.DiskSnapshots snapshots;

  private final ControllerClock controllerClock;
  private final ObjectMapper json;

  private final byte[] secret;

  /**
   * This agent's secret, which signs the tokens for its disks ({@link
   * dev.rota.agentapi.DiskToken}).
   */
  private final String rawSecret;

  /** A file of a persistent disk, read by the agent it is copied to. */
  private static final java.util.regex.Pattern DISK_FILE =
      java.util.regex.Pattern.compile("^/v1/disks/([^/]+)/files/(disk\\.qcow2|memory\\.state)$");

  /** With {@code tls}, HTTPS; without, plain HTTP. */
  public AgentHttp(
      String host,
      int port,
      TaskTable tasks,
      ObjectMapper json,
      ExecutorService executor,
      String secret,
      javax.net.ssl.SSLContext tls,
      PortTunnels tunnels,
      ControllerClock controllerClock,
      dev.rota.agent.runtimes.PersistentDisks disks,
      dev.rota.agent.runtimes.DiskSnapshots snapshots)
      throws IOException {
    this.disks = disks;
    this.snapshots = snapshots;
    this.tunnels = tunnels;
    this.controllerClock = controllerClock;
    // The JDK's server leaves Nagle's algorithm on: each answer waited for the caller's delayed
    // ACK, 40 ms a call on Linux (a probe is two calls), where with it off a call takes 2 ms. The
    // server reads this once, when the process makes its first one.
    System.setProperty(NODELAY, "true");
    // The scheduler calls a quiet worker's agent every few terms, a minute or more apart at a
    // thousand workers: closed after 30 s, each connection was opened again, with a TLS handshake
    // on both sides, by the term that a burst woke, for its starts. Ten minutes covers the gaps;
    // an operator may still say otherwise.
    if (System.getProperty(IDLE_SECONDS) == null) {
      System.setProperty(IDLE_SECONDS, "600");
    }
    if (tls == null) {
      this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } else {
      com.sun.net.httpserver.HttpsServer https =
          com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress(host, port), 64);
      https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
      this.server = https;
    }
    this.tasks = tasks;
    this.json = json;
    this.secret = ("Bearer " + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    this.rawSecret = secret;
    server.setExecutor(executor);
    server.createContext("/healthz", this::healthz);
    server.createContext("/v1/tasks", this::tasks);
    server.createContext("/v1/logs/", this::keptLogs);
    server.createContext("/v1/removals", this::removals);
    server.createContext("/v1/disks", this::disks);
  }

  /**
   * {@code GET /v1/disks}: the persistent disks and data volumes this worker holds; {@code DELETE
   * /v1/disks/{id}}: the disk's VM, or the volume, is deleted, and it goes (409 while a task still
   * runs from it). A worker without the qemu runtime holds none.
   */
  private void disks(HttpExchange x) throws IOException {
    try {
      java.util.regex.Matcher file = DISK_FILE.matcher(x.getRequestURI().getPath());
      if (file.matches()) {
        diskFile(x, file.group(1), file.group(2));
        return;
      }
      java.util.regex.Matcher send = DISK_MOVE.matcher(x.getRequestURI().getPath());
      if (send.matches()) {
        sendVm(x, send.group(1));
        return;
      }
      if (!authorized(x)) {
        problem(x, 401, "the disk API needs this agent's secret as a bearer token");
        return;
      }
      String path = x.getRequestURI().getPath();
      String method = x.getRequestMethod();
      if (path.equals("/v1/disks") || path.equals("/v1/disks/")) {
        if (!method.equals("GET")) {
          problem(x, 405, "use GET on /v1/disks");
          return;
        }
        send(x, 200, disks == null ? List.of() : disks.list());
        return;
      }
      String id = path.substring("/v1/disks/".length());
      if (id.endsWith("/snapshot")) {
        snapshot(x, id.substring(0, id.length() - "/snapshot".length()));
        return;
      }
      if (!method.equals("DELETE")) {
        problem(x, 405, "use DELETE on /v1/disks/{id}");
        return;
      }
      if (!dev.rota.agentapi.DiskSpec.ID.matcher(id).matches()
          && !dev.rota.agentapi.VolumeSpec.ID.matcher(id).matches()) {
        problem(x, 400, id + " is not a disk id (<vm>-<submission>) nor a volume's (<name>-v<n>)");
        return;
      }
      if (disks != null && !disks.delete(id)) {
        problem(x, 409, "disk " + id + " is in use by a task that has not ended");
        return;
      }
      x.sendResponseHeaders(204, -1);
    } finally {
      x.close();
    }
  }

  /**
   * {@code POST /v1/disks/{id}/snapshot {"image": "oci://..."}}: the disk, at rest, saved as that
   * image ({@link dev.rota.agent.runtimes.DiskSnapshots}); 404 for a disk not here, 409 while a
   * task runs from it, 502 when the registry refuses it.
   */
  private void snapshot(HttpExchange x, String id) throws IOException {
    if (!x.getRequestMethod().equals("POST")) {
      problem(x, 405, "use POST on /v1/disks/{id}/snapshot");
      return;
    }
    dev.rota.agentapi.DiskSnapshot.Request request =
        body(x, dev.rota.agentapi.DiskSnapshot.Request.class, "a snapshot request");
    if (request == null) {
      return;
    }
    if (request.image() == null
        || !dev.rota.agentapi.OciReference.PATTERN.matcher(request.image()).matches()) {
      problem(x, 400, "image: a snapshot is pushed to an OCI registry: oci://registry/repo:tag");
      return;
    }
    if (snapshots == null) {
      problem(x, 404, "no disk " + id + " on this worker: it runs no qemu VMs");
      return;
    }
    try {
      dev.rota.agentapi.DiskSnapshot made =
          snapshots.snapshot(id, request.image(), request.memory());
      if (made == null) {
        problem(x, 404, "no disk " + id + " on this worker");
        return;
      }
      send(x, 200, made);
    } catch (IllegalStateException e) {
      problem(x, 409, e.getMessage());
    } catch (dev.rota.agent.images.ImageCache.ImageException e) {
      problem(x, 502, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem(x, 503, "the agent is stopping");
    }
  }

  /**
   * {@code GET /v1/disks/{id}/files/{name}}: a file of a persistent disk at rest, for the agent it
   * is copied to, which shows the controller's token for that disk (or this agent's secret). 404
   * for a disk or file not here, 409 while a task runs from the disk.
   */
  private void diskFile(HttpExchange x, String id, String name) throws IOException {
    if (!granted(x, id)) {
      problem(x, 401, "a disk's files need a token for that disk, or this agent's secret");
      return;
    }
    if (!x.getRequestMethod().equals("GET")) {
      problem(x, 405, "use GET on /v1/disks/{id}/files/{name}");
      return;
    }
    Path file;
    try {
      file = disks == null ? null : disks.export(id, name);
    } catch (IllegalStateException e) {
      problem(x, 409, e.getMessage());
      return;
    }
    if (file == null) {
      problem(x, 404, "no " + name + " of disk " + id + " on this worker");
      return;
    }
    x.getResponseHeaders().set("Content-Type", "application/octet-stream");
    x.sendResponseHeaders(200, Files.size(file));
    try (OutputStream out = x.getResponseBody()) {
      Files.copy(file, out);
    }
  }

  /** {@code DELETE /v1/logs/{vm}}: the VM is deleted, and the logs kept of its tasks go. */
  private void keptLogs(HttpExchange x) throws IOException {
    try {
      if (!authorized(x)) {
        problem(x, 401, "the task API needs this agent's secret as a bearer token");
        return;
      }
      String vm = x.getRequestURI().getPath().substring("/v1/logs/".length());
      if (!x.getRequestMethod().equals("DELETE")) {
        problem(x, 405, "use DELETE on /v1/logs/{vm}");
        return;
      }
      if (!TaskTable.TASK_ID.matcher(vm + ".0").matches()) {
        problem(x, 400, vm + " is not a VM name");
        return;
      }
      tasks.forgetLogs(vm);
      x.sendResponseHeaders(204, -1);
    } finally {
      x.close();
    }
  }

  /**
   * {@code POST /v1/removals}: deleted VMs' tasks removed, at once rather than one after another,
   * and then their kept logs dropped ({@link dev.rota.agentapi.TaskRemovals}); 204 once all are.
   */
  private void removals(HttpExchange x) throws IOException {
    try {
      if (!authorized(x)) {
        problem(x, 401, "the task API needs this agent's secret as a bearer token");
        return;
      }
      if (!x.getRequestURI().getPath().equals("/v1/removals")) {
        problem(x, 404, "no such path");
        return;
      }
      if (!x.getRequestMethod().equals("POST")) {
        problem(x, 405, "use POST on /v1/removals");
        return;
      }
      dev.rota.agentapi.TaskRemovals removals =
          body(x, dev.rota.agentapi.TaskRemovals.class, "a list of removals");
      if (removals == null) {
        return;
      }
      String refused = refusal(removals);
      if (refused != null) {
        problem(x, 400, refused);
        return;
      }
      // Each removal waits for its task to end (a guest's shutdown, a process's grace): side by
      // side, a batch takes as long as its slowest task.
      java.util.concurrent.CompletableFuture.allOf(
              removals.tasks().stream()
                  .map(
                      t ->
                          java.util.concurrent.CompletableFuture.runAsync(
                              () -> tasks.remove(t.id(), t.submission(), false), AgentHttp::aside))
                  .toArray(java.util.concurrent.CompletableFuture[]::new))
          .join();
      removals.vms().forEach(tasks::forgetLogs);
      x.sendResponseHeaders(204, -1);
    } catch (java.util.concurrent.CompletionException e) {
      problem(x, 500, "a removal failed: " + e.getCause());
    } finally {
      x.close();
    }
  }

  /** A thread of its own for one removal of a batch. */
  private static void aside(Runnable removal) {
    Thread t = new Thread(removal, "task-removal");
    t.setDaemon(true);
    t.start();
  }

  /** Why a batch of removals is refused as a whole; null when it is not. */
  private static String refusal(dev.rota.agentapi.TaskRemovals removals) {
    int most = dev.rota.agentapi.TaskRemovals.MOST;
    if (removals.tasks().isEmpty() && removals.vms().isEmpty()) {
      return "tasks, vms: nothing to remove";
    }
    if (removals.tasks().size() > most || removals.vms().size() > most) {
      return "tasks, vms: at most " + most + " of each";
    }
    for (int i = 0; i < removals.tasks().size(); i++) {
      String id = removals.tasks().get(i).id();
      if (id == null || !TaskTable.TASK_ID.matcher(id).matches()) {
        return "tasks[" + i + "].id: " + id + " is not <vm>.<restartCount>";
      }
    }
    for (int i = 0; i < removals.vms().size(); i++) {
      String vm = removals.vms().get(i);
      if (vm == null || !TaskTable.TASK_ID.matcher(vm + ".0").matches()) {
        return "vms[" + i + "]: " + vm + " is not a VM name";
      }
    }
    return null;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public void start() {
    server.start();
  }

  public void stop() {
    server.stop(0);
    tunnels.close();
  }

  private void healthz(HttpExchange x) throws IOException {
    send(x, 200, Map.of("status", "ready"));
  }

  /**
   * Whether the caller shows this agent's secret, or a token the controller signed with it for
   * {@code subject} ({@link dev.rota.agentapi.DiskToken}), unexpired.
   */
  private boolean granted(HttpExchange x, String subject) {
    String given = x.getRequestHeaders().getFirst("Authorization");
    return authorized(x)
        || (given != null
            && given.startsWith("Bearer ")
            && dev.rota.agentapi.DiskToken.grants(
                rawSecret,
                subject,
                given.substring("Bearer ".length()),
                java.time.Instant.now().getEpochSecond()));
  }

  /** Only the controller, which holds this agent's secret, may see or change its tasks. */
  private boolean authorized(HttpExchange x) {
    String given = x.getRequestHeaders().getFirst("Authorization");
    return given != null
        && java.security.MessageDigest.isEqual(
            given.getBytes(java.nio.charset.StandardCharsets.UTF_8), secret);
  }

  private void tasks(HttpExchange x) throws IOException {
    try {
      java.util.regex.Matcher arrival = ARRIVAL.matcher(x.getRequestURI().getPath());
      if (arrival.matches()) {
        incoming(x, arrival.group(1), arrival.group(2));
        return;
      }
      if (!authorized(x)) {
        problem(x, 401, "the task API needs this agent's secret as a bearer token");
        return;
      }
      String path = x.getRequestURI().getPath();
      String method = x.getRequestMethod();
      if (path.equals("/v1/tasks") || path.equals("/v1/tasks/")) {
        switch (method) {
          case "GET" -> send(x, 200, tasks.list());
          case "POST" -> startAll(x);
          default -> problem(x, 405, "use GET or POST on /v1/tasks");
        }
        return;
      }
      String id = path.substring("/v1/tasks/".length());
      java.util.regex.Matcher into = INTO.matcher(id);
      if (into.matches()) {
        if (!method.equals("POST")) {
          problem(x, 405, "use POST on /v1/tasks/" + id);
          return;
        }
        enter(x, into.group(1), into.group(2), into.group(3));
        return;
      }
      if (id.endsWith("/user-data")) {
        deliver(x, method, id.substring(0, id.length() - "/user-data".length()));
        return;
      }
      if (id.endsWith("/move")) {
        move(x, method, id.substring(0, id.length() - "/move".length()));
        return;
      }
      for (String action : ACTIONS) {
        if (id.endsWith("/" + action)) {
          act(x, method, id.substring(0, id.length() - action.length() - 1), action);
          return;
        }
      }
      if (id.endsWith("/logs") && method.equals("GET")) {
        logs(x, id.substring(0, id.length() - "/logs".length()));
        return;
      }
      if (!TaskTable.TASK_ID.matcher(id).matches()) {
        problem(x, 400, "task id " + id + " is not <vm>.<restartCount>");
        return;
      }
      switch (method) {
        case "PUT" -> {
          TaskSpec spec = body(x, TaskSpec.class, "a task spec");
          if (spec == null) {
            return;
          }
          TaskStarts.Outcome outcome = start(new TaskStarts.Item(id, spec), lateBy(x));
          if (!outcome.started()) {
            problem(x, outcome.status(), outcome.detail());
            return;
          }
          send(
              x,
              outcome.status(),
              tasks.list().stream().filter(t -> t.id().equals(id)).findFirst().orElse(null));
        }
        case "DELETE" -> {
          tasks.remove(id, submissionOf(x), keepsLogs(x));
          x.sendResponseHeaders(204, -1);
        }
        default -> problem(x, 405, "use PUT or DELETE on /v1/tasks/{id}");
      }
    } catch (IllegalArgumentException e) {
      problem(x, 400, e.getMessage());
    } finally {
      if (opened.get()) {
        opened.set(false);
      } else {
        x.close();
      }
    }
  }

  /** What a task is asked to do through its runtime: {@code POST /v1/tasks/{id}/<action>}. */
  private static final List<String> ACTIONS = List.of("suspend", "pause", "continue");

  /**
   * {@code POST /v1/tasks/{id}/suspend}: the task's memory saved on this worker and the task ended,
   * answered once both are done with the memory's size ({@code {"bytes": N}}); a task suspended
   * already answers as it did then, for the call may be a retry. {@code /pause} and {@code
   * /continue}: the running task's guest paused where it runs (its CPUs stopped, its QEMU and
   * memory kept) or run on, 204 once done. Refused with 404 for a task not here, 409 for one not
   * running or whose runtime cannot do it.
   */
  private void act(HttpExchange x, String method, String id, String action) throws IOException {
    if (!method.equals("POST")) {
      problem(x, 405, "use POST on /v1/tasks/" + id + "/" + action);
      return;
    }
    try {
      if (action.equals("suspend")) {
        send(x, 200, Map.of("bytes", tasks.access(id, false, TaskRuntime::suspend)));
        return;
      }
      tasks.access(
          id,
          (runtime, task) -> {
            runtime.pause(task, action.equals("pause"));
            return null;
          });
      x.sendResponseHeaders(204, -1);
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
    } catch (IOException e) {
      problem(x, 500, "cannot " + action + " task " + id + ": " + e.getMessage());
    }
  }

  /**
   * {@code POST /v1/tasks/{id}/user-data?submission=N}: the body, user data for a VM claimed from a
   * pool, written into the running task's guest (its runtime says how); 204 once it is there. The
   * same data again is not run again. Refused with 404 for a task not here or of another
   * submission, 409 for one not running or whose guest agent does not answer yet, 422 for a guest
   * that cannot take it.
   */
  private void deliver(HttpExchange x, String method, String id) throws IOException {
    if (!method.equals("POST")) {
      problem(x, 405, "use POST on /v1/tasks/" + id + "/user-data");
      return;
    }
    byte[] userData = read(x.getRequestBody());
    if (userData == null) {
      problem(x, 413, "body larger than " + MAX_BODY + " bytes");
      return;
    }
    Long submission = submissionOf(x);
    try {
      tasks.access(
          id,
          (runtime, task) -> {
            if (submission != null && !submission.equals(task.spec.submission())) {
              throw new Refusal(404, "no task " + id + " of submission " + submission + " here");
            }
            runtime.deliver(task, userData);
            return null;
          });
      x.sendResponseHeaders(204, -1);
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
    } catch (IOException e) {
      problem(x, 500, "cannot deliver user data to task " + id + ": " + e.getMessage());
    }
  }

  /**
   * {@code POST /v1/tasks}: each task started as its own {@code PUT} would start it, and answered
   * with what that {@code PUT} would have said; one refused leaves the others started.
   */
  private void startAll(HttpExchange x) throws IOException {
    TaskStarts starts = body(x, TaskStarts.class, "a list of task starts");
    if (starts == null) {
      return;
    }
    if (starts.items() == null
        || starts.items().isEmpty()
        || starts.items().size() > TaskStarts.MOST) {
      problem(x, 400, "items: 1 to " + TaskStarts.MOST + " task starts");
      return;
    }
    List<TaskStarts.Outcome> outcomes = new java.util.ArrayList<>();
    long late = lateBy(x);
    for (TaskStarts.Item item : starts.items()) {
      outcomes.add(start(item, late));
    }
    send(x, 200, new TaskStarts.Answer(outcomes));
  }

  /**
   * How many milliseconds after its deadline ({@link TaskStarts#START_BEFORE}) a start request
   * came, by the controller's clock as this agent knows it; 0 when in time, or when it cannot be
   * told (no deadline given, no controller time heard yet).
   */
  private long lateBy(HttpExchange x) {
    String before = x.getRequestHeaders().getFirst(TaskStarts.START_BEFORE);
    java.util.OptionalLong now = controllerClock.now();
    if (before == null || now.isEmpty()) {
      return 0;
    }
    try {
      return Math.max(0, now.getAsLong() - Long.parseLong(before.strip()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * Starts one task, as a PUT or a batch's item asks; what its PUT answers. A start that came
   * {@code late} is refused: its controller has counted it as not made, and may have placed the VM
   * elsewhere.
   */
  private TaskStarts.Outcome start(TaskStarts.Item item, long late) {
    String id = item.id();
    if (id == null || !TaskTable.TASK_ID.matcher(id).matches()) {
      return new TaskStarts.Outcome(id, 400, "task id " + id + " is not <vm>.<restartCount>");
    }
    if (item.spec() == null) {
      return new TaskStarts.Outcome(id, 400, "no task spec");
    }
    if (late > 0) {
      log.info("refused the start of task {}: it came {} ms after its deadline", id, late);
      return new TaskStarts.Outcome(
          id,
          TaskStarts.TOO_LATE,
          "the start of task "
              + id
              + " came "
              + late
              + " ms after the controller stopped waiting for it; not started");
    }
    try {
      return new TaskStarts.Outcome(id, tasks.put(id, item.spec()) ? 201 : 200, null);
    } catch (TaskTable.SubmissionConflict e) {
      return new TaskStarts.Outcome(id, 409, e.getMessage());
    } catch (IllegalArgumentException e) {
      return new TaskStarts.Outcome(id, 400, e.getMessage());
    }
  }

  /** The request's body as {@code type}; null once a problem said why it is not {@code what}. */
  private <T> T body(HttpExchange x, Class<T> type, String what) throws IOException {
    byte[] body = read(x.getRequestBody());
    if (body == null) {
      problem(x, 413, "body larger than " + MAX_BODY + " bytes");
      return null;
    }
    try {
      return json.readValue(body, type);
    } catch (IOException e) {
      problem(
          x,
          400,
          "body is not "
              + what
              + ": "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      return null;
    }
  }

  /**
   * The ways into a task under {@code /v1/tasks/}: {@code {id}/ports/{name}/connect}, {@code
   * {id}/console}, {@code {id}/exec}.
   */
  private static final java.util.regex.Pattern INTO =
      java.util.regex.Pattern.compile("^([^/]+)/(ports/([a-z0-9-]{1,15})/connect|console|exec)$");

  private static final java.util.regex.Pattern DISK_MOVE =
      java.util.regex.Pattern.compile("^/v1/disks/([^/]+)/move$");

  /**
   * {@code POST /v1/disks/{id}/move {worker, endpoint, task, token, certificateSha256}}: the
   * running VM that keeps disk {@code id} here sent, while it runs, to the task waiting for it on
   * the caller's worker, as {@code /v1/tasks/{id}/move} does. Asked by that worker's agent, which
   * shows the controller's token for the disk (as for its files), so that the controller only
   * starts the task there. {@code GET /v1/disks/{id}/move?worker={name}}, with the same token:
   * where a move of it to that worker stands ({@link dev.rota.agentapi.LiveMove.Outcome}), for the
   * agent that asked and lost the answer.
   */
  private void sendVm(HttpExchange x, String id) throws IOException {
    if (!granted(x, id)) {
      problem(x, 401, "moving a VM needs a token for its disk, or this agent's secret");
      return;
    }
    if (x.getRequestMethod().equals("GET")) {
      List<String> to = queryAll(x.getRequestURI().getRawQuery(), "worker");
      if (to.size() != 1) {
        problem(x, 400, "worker: the one worker the VM moves to, as ?worker=NAME");
        return;
      }
      send(x, 200, tasks.moveOf(id, to.get(0)));
      return;
    }
    try {
      move(x, x.getRequestMethod(), tasks.runningKeeping(id));
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
    }
  }

  private static final java.util.regex.Pattern ARRIVAL =
      java.util.regex.Pattern.compile("^/v1/tasks/([^/]+)/incoming/([a-z]{1,16})$");

  /**
   * {@code POST /v1/tasks/{id}/move {worker, endpoint, task, token, certificateSha256}}: the
   * running task's VM sent, while it runs, to the task that waits for it on another worker's agent,
   * and this task ended; answered once done ({@link dev.rota.agentapi.LiveMove}). A move that fails
   * leaves the VM running here: 502 saying why. 404 for a task not here, 409 for one not running or
   * whose runtime cannot move it.
   */
  private void move(HttpExchange x, String method, String id) throws IOException {
    if (!method.equals("POST")) {
      problem(x, 405, "use POST on /v1/tasks/" + id + "/move");
      return;
    }
    dev.rota.agentapi.LiveMove.Request to =
        body(x, dev.rota.agentapi.LiveMove.Request.class, "where the VM moves");
    if (to == null) {
      return;
    }
    try {
      dev.rota.agentapi.LiveMove moved =
          tasks.access(id, (runtime, task) -> runtime.move(task, to));
      log.info("task {} moved to worker {} while it ran", id, moved.worker());
      send(x, 200, moved);
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
    } catch (IOException e) {
      problem(x, 502, e.getMessage());
    }
  }

  /**
   * {@code POST /v1/tasks/{id}/incoming/{memory|disks}}: a tunnel ({@link PortTunnels}) from the
   * agent of the worker a VM leaves to the QEMU of this task, which waits for it. That agent shows
   * the controller's token for this task's arrival ({@link dev.rota.agentapi.DiskToken#incoming}),
   * or this agent's secret.
   */
  private void incoming(HttpExchange x, String id, String channel) throws IOException {
    // Refused with the connection closed: the tunnel's request body never ends on its own.
    if (!granted(x, dev.rota.agentapi.DiskToken.incoming(id))) {
      refuse(x, 401, "a VM arriving at a task needs a token for that task, or this agent's secret");
      return;
    }
    if (!x.getRequestMethod().equals("POST")) {
      refuse(x, 405, "use POST on /v1/tasks/" + id + "/incoming/" + channel);
      return;
    }
    try {
      tunnels.open(
          x,
          id + " arrival (" + channel + ")",
          tasks.access(id, false, (runtime, task) -> runtime.incoming(task, channel)));
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
      return;
    }
    opened.set(true);
  }

  /**
   * A tunnel into a running task ({@link PortTunnels}): to a named port, its console or a command
   * run in it. Refused with 404 for a task (or port) this agent does not have, 409 for a task that
   * does not run or offers no such way in, 502 when nothing accepts on the port.
   */
  private void enter(HttpExchange x, String id, String way, String port) throws IOException {
    try {
      if (way.equals("console")) {
        tunnels.open(x, id + " console", tasks.access(id, TaskRuntime::console));
      } else if (way.equals("exec")) {
        List<String> command = queryAll(x.getRequestURI().getRawQuery(), "command");
        if (command.isEmpty()) {
          throw new Refusal(400, "exec needs a command: ?command=...&command=...");
        }
        tunnels.exec(x, id, tasks.access(id, (runtime, task) -> runtime.exec(task, command)));
      } else {
        tunnels.open(
            x, id + " port " + port, tasks.access(id, (runtime, task) -> dial(task, port)));
      }
    } catch (Refusal e) {
      refuse(x, e.status(), e.getMessage());
      return;
    }
    opened.set(true);
  }

  /** A connection to the task's named port where the worker forwards it. */
  private Conduit dial(Task task, String port) throws Refusal {
    for (dev.rota.agentapi.PortSpec p : task.spec.portsOrNone()) {
      if (p.name().equals(port) && p.hostPort() != null) {
        try {
          return tunnels.dial(p.hostPort());
        } catch (IOException e) {
          throw new Refusal(
              502,
              "task "
                  + task.id
                  + " does not accept connections on port "
                  + port
                  + " (worker port "
                  + p.hostPort()
                  + "): "
                  + e.getMessage());
        }
      }
    }
    throw new Refusal(404, "task " + task.id + " has no port named " + port);
  }

  /** Set by a request that opened a tunnel: its exchange outlives the handler, closed by it. */
  private final ThreadLocal<Boolean> opened = ThreadLocal.withInitial(() -> false);

  /**
   * What a task wrote to stdout ({@code ?stream=stderr}: stderr), as plain text: all that is kept,
   * or from an offset ({@code from}), a time ({@code since}, RFC 3339) or its last lines ({@code
   * tailLines}). The answer says where it ends and whether the task may write more.
   */
  private void logs(HttpExchange x, String id) throws IOException {
    if (!TaskTable.TASK_ID.matcher(id).matches()) {
      problem(x, 400, "task id " + id + " is not <vm>.<restartCount>");
      return;
    }
    Map<String, String> query = query(x.getRequestURI().getRawQuery());
    dev.rota.agentapi.LogQuery ask;
    try {
      String stream = query.getOrDefault("stream", "stdout");
      if (!TaskLogs.STREAMS.contains(stream)) {
        throw new IllegalArgumentException("stream must be stdout or stderr, got " + stream);
      }
      ask =
          new dev.rota.agentapi.LogQuery(
              stream,
              query.containsKey("from") ? Long.parseLong(query.get("from")) : null,
              query.containsKey("since") ? java.time.Instant.parse(query.get("since")) : null,
              query.containsKey("tailLines") ? Integer.parseInt(query.get("tailLines")) : null);
    } catch (RuntimeException e) {
      problem(x, 400, "bad log query: " + e.getMessage());
      return;
    }
    TaskLogs.Chunk chunk = tasks.logs(id, ask);
    if (chunk == null) {
      problem(x, 404, "no task " + id + " here, and no logs kept of it");
      return;
    }
    x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    x.getResponseHeaders().set(LOG_NEXT, Long.toString(chunk.next()));
    x.getResponseHeaders().set(LOG_LIVE, Boolean.toString(chunk.live()));
    x.sendResponseHeaders(200, chunk.bytes().length == 0 ? -1 : chunk.bytes().length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(chunk.bytes());
    }
  }

  /**
   * Reads what is left of the request's body (up to {@link #MAX_BODY}) before an early answer: the
   * server closes a connection whose request it did not read, and a close with unread bytes resets
   * the connection, which can discard the answer before the caller reads it (a refused PUT then
   * failed with "header parser received no bytes" instead of its 401).
   */
  private static void drain(HttpExchange x) throws IOException {
    InputStream in = x.getRequestBody();
    long left = MAX_BODY;
    byte[] buffer = new byte[8192];
    int n;
    while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
      left -= n;
    }
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    return body.length > MAX_BODY ? null : body;
  }

  /** A query's parameters, decoded, in order: name and value of each. */
  private static List<Map.Entry<String, String>> pairs(String raw) {
    List<Map.Entry<String, String>> pairs = new java.util.ArrayList<>();
    if (raw == null || raw.isEmpty()) {
      return pairs;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      pairs.add(
          Map.entry(
              java.net.URLDecoder.decode(
                  eq < 0 ? pair : pair.substring(0, eq), java.nio.charset.StandardCharsets.UTF_8),
              java.net.URLDecoder.decode(
                  eq < 0 ? "" : pair.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8)));
    }
    return pairs;
  }

  /**
   * {@code ?submission=N} on a task's removal: remove it only if it is of that submission; null
   * when not given. Not a number is a caller's mistake ({@link IllegalArgumentException}: 400).
   */
  /** A removal keeps the task's logs unless told {@code logs=discard} (its VM is gone). */
  private static boolean keepsLogs(HttpExchange x) {
    String given = query(x.getRequestURI().getRawQuery()).get("logs");
    if (given == null || given.equals("keep")) {
      return true;
    } else if (given.equals("discard")) {
      return false;
    }
    throw new IllegalArgumentException("logs: keep or discard, not " + given);
  }

  private static Long submissionOf(HttpExchange x) {
    String given = query(x.getRequestURI().getRawQuery()).get("submission");
    if (given == null) {
      return null;
    }
    try {
      return Long.parseLong(given);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("submission: not a number: " + given);
    }
  }

  /** Every value of a query's parameter {@code name}, in order. */
  private static List<String> queryAll(String raw, String name) {
    return pairs(raw).stream()
        .filter(p -> p.getKey().equals(name))
        .map(Map.Entry::getValue)
        .toList();
  }

  /** A query's parameters; the last of a name repeated wins. */
  private static Map<String, String> query(String raw) {
    Map<String, String> params = new java.util.HashMap<>();
    pairs(raw).forEach(p -> params.put(p.getKey(), p.getValue()));
    return params;
  }

  private void problem(HttpExchange x, int status, String detail) throws IOException {
    drain(x);
    answer(x, status, detail);
  }

  /**
   * A tunnel refused: its caller sends nothing until it is answered, so there is nothing to read
   * first (and waiting for the end of its body would wait for ever); the connection is not reused.
   */
  private void refuse(HttpExchange x, int status, String detail) throws IOException {
    x.getResponseHeaders().set("Connection", "close");
    answer(x, status, detail);
  }

  private void answer(HttpExchange x, int status, String detail) throws IOException {
    byte[] body =
        json.writeValueAsBytes(
            Map.of(
                "type", "about:blank", "status", status, "title", title(status), "detail", detail));
    x.getResponseHeaders().set("Content-Type", "application/problem+json");
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private void send(HttpExchange x, int status, Object value) throws IOException {
    byte[] body = json.writeValueAsBytes(value);
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 409 -> "Conflict";
      case 502 -> "Bad Gateway";
      case 405 -> "Method Not Allowed";
      case 413 -> "Request Entity Too Large";
      default -> "Error";
    };
  }
}
