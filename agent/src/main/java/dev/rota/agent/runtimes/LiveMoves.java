package dev.rota.agent.runtimes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A running guest sent to a QEMU on another worker while it runs, as libvirt does it: first each of
 * its writable disks is mirrored ({@code drive-mirror}) to the other QEMU's NBD server, the guest
 * writing on, until the copies keep up; then its memory is sent by QEMU's migration, which pauses
 * the guest only for the last of it. QEMU pauses before the switch-over, the mirrors are completed
 * while it is paused, and only then does the other QEMU take over: the disks there are whole when
 * its guest runs. Every connection QEMU makes goes to a socket of the agent's ({@link MoveRelay}),
 * which carries it to the other agent.
 *
 * <p>Until the other QEMU has the guest, this one can always take it back: a move that fails
 * anywhere leaves the guest running here, its mirrors dropped.
 */
final class LiveMoves {
  private static final Duration QMP_DEADLINE = Duration.ofSeconds(3);

  /** The longest the disks' mirrors may take to catch up. */
  static final Duration MIRROR_DEADLINE = Duration.ofMinutes(30);

  private static final Duration POLL = Duration.ofMillis(100);

  private final Qmp qmp;

  LiveMoves(Qmp qmp) {
    this.qmp = qmp;
  }

  /** A guest's disk that a move copies: QEMU's name for its drive, and for its node. */
  record Drive(String device, String node) {}

  /** What a move sent, and for how long the guest was paused by it. */
  record Sent(long bytes, long pausedMs) {}

  /** The drives a guest writes to: a read-only one (its seed) is the same on both workers. */
  List<Drive> writable(Path control) throws IOException {
    List<Drive> drives = new ArrayList<>();
    for (JsonNode b : qmp.execute(control, "query-block", null, QMP_DEADLINE)) {
      JsonNode inserted = b.path("inserted");
      if (!inserted.isMissingNode() && !inserted.path("ro").asBoolean(false)) {
        drives.add(new Drive(b.path("device").asText(), inserted.path("node-name").asText()));
      }
    }
    return drives;
  }

  /**
   * Sends the guest of the QEMU at {@code control} (working in {@code cwd}) to the QEMU that waits
   * for it ({@link #receive}): its disks' mirrors connect to {@code disks}, its memory to {@code
   * memory}, sockets whose every connection the caller carries there. Returns once the other QEMU
   * has the guest; this QEMU is then paused for good, and may end.
   */
  Sent send(Path control, Path cwd, Path disks, Path memory, Consumer<String> progress)
      throws IOException {
    List<Drive> drives = writable(control);
    List<String> jobs = new ArrayList<>();
    try {
      for (Drive d : drives) {
        ObjectNode mirror = qmp.arguments();
        mirror.put("job-id", "move-" + d.device());
        mirror.put("device", d.device());
        mirror.put("target", "nbd+unix:///" + d.device() + "?socket=" + relative(cwd, disks));
        mirror.put("format", "raw");
        // What the guest wrote over its image: the other worker holds the same image beneath.
        mirror.put("sync", "top");
        mirror.put("mode", "existing");
        qmp.execute(control, "drive-mirror", mirror, QMP_DEADLINE);
        jobs.add("move-" + d.device());
      }
      long diskBytes = awaitMirrors(control, jobs, progress);
      capabilities(control, "pause-before-switchover", "return-path");
      ObjectNode unthrottled = qmp.arguments();
      unthrottled.put("max-bandwidth", Long.MAX_VALUE / 2);
      qmp.execute(control, "migrate-set-parameters", unthrottled, QMP_DEADLINE);
      ObjectNode to = qmp.arguments();
      to.put("uri", "unix:" + relative(cwd, memory));
      progress.accept("sending its memory");
      qmp.execute(control, "migrate", to, QMP_DEADLINE);
      awaitMigration(control, "pre-switchover");
      long pausedAt = System.nanoTime();
      // Paused: nothing writes to the disks any more. Each mirror is completed (cancelling a
      // mirror that caught up finishes it, the copy whole) before the other QEMU may run.
      for (String job : jobs) {
        ObjectNode cancel = qmp.arguments();
        cancel.put("device", job);
        qmp.execute(control, "block-job-cancel", cancel, QMP_DEADLINE);
      }
      awaitNoJobs(control, jobs);
      jobs.clear();
      ObjectNode go = qmp.arguments();
      go.put("state", "pre-switchover");
      qmp.execute(control, "migrate-continue", go, QMP_DEADLINE);
      JsonNode done = awaitMigration(control, "completed");
      long pausedMs =
          Math.max((System.nanoTime() - pausedAt) / 1_000_000, done.path("downtime").asLong(0));
      return new Sent(diskBytes + done.path("ram").path("transferred").asLong(0), pausedMs);
    } catch (IOException | RuntimeException e) {
      if (takeBack(control, jobs)) {
        // It failed after the other QEMU took the guest (a call that timed out, say): moved all
        // the same, and this QEMU must not run it.
        return new Sent(0, 0);
      }
      throw e;
    }
  }

  /**
   * Readies the QEMU at {@code control}, started with {@code -incoming defer}, for its guest:
   * serves its writable disks on the NBD socket {@code disks} (for the mirrors) and listens for its
   * memory on {@code memory}.
   */
  void await(Path control, Path cwd, Path disks, Path memory, BooleanSupplier alive)
      throws IOException, InterruptedException {
    awaitControl(control, alive);
    ObjectNode server = qmp.arguments();
    ObjectNode addr = server.putObject("addr");
    addr.put("type", "unix");
    addr.putObject("data").put("path", relative(cwd, disks));
    qmp.execute(control, "nbd-server-start", server, QMP_DEADLINE);
    for (Drive d : writable(control)) {
      ObjectNode export = qmp.arguments();
      export.put("type", "nbd");
      export.put("id", "move-" + d.device());
      export.put("node-name", d.node());
      export.put("name", d.device());
      export.put("writable", true);
      qmp.execute(control, "block-export-add", export, QMP_DEADLINE);
    }
    capabilities(control, "return-path");
    ObjectNode from = qmp.arguments();
    from.put("uri", "unix:" + relative(cwd, memory));
    qmp.execute(control, "migrate-incoming", from, QMP_DEADLINE);
  }

  /**
   * Turns on migration capabilities. {@code return-path}: the other QEMU answers on the same
   * connection, so that a migration counts as completed only once it has loaded all of the guest,
   * and one it could not load fails here, where the guest then runs on, rather than leaving the
   * guest nowhere. {@code pause-before-switchover}: the guest pauses before the hand-over, for the
   * disks' mirrors to complete.
   */
  private void capabilities(Path control, String... names) throws IOException {
    ObjectNode capabilities = qmp.arguments();
    ArrayNode list = capabilities.putArray("capabilities");
    for (String name : names) {
      list.addObject().put("capability", name).put("state", true);
    }
    qmp.execute(control, "migrate-set-capabilities", capabilities, QMP_DEADLINE);
  }

  /** Runs the guest of the QEMU at {@code control}, paused once it arrived. */
  void resume(Path control) throws IOException {
    qmp.execute(control, "nbd-server-stop", QMP_DEADLINE);
    qmp.execute(control, "cont", QMP_DEADLINE);
  }

  /** What QEMU says of its guest: {@code running}, {@code inmigrate}, {@code paused}, … */
  String status(Path control) throws IOException {
    return qmp.execute(control, "query-status", null, QMP_DEADLINE).path("status").asText();
  }

  /**
   * Waits for the guest to arrive at the QEMU readied by {@link #await}, stops serving its disks,
   * and runs it.
   */
  void arrived(Path control, BooleanSupplier alive, Duration patience)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      if (!alive.getAsBoolean()) {
        throw new IOException("QEMU ended before the VM arrived");
      }
      String status = status(control);
      if (status.equals("running") || status.equals("paused")) {
        qmp.execute(control, "nbd-server-stop", QMP_DEADLINE);
        if (status.equals("paused")) {
          qmp.execute(control, "cont", QMP_DEADLINE);
        }
        return;
      }
      if (!status.equals("inmigrate") || System.nanoTime() > deadline) {
        throw new IOException("the VM did not arrive: its QEMU is " + status);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** Waits until every mirror has caught up; what they copied. */
  private long awaitMirrors(Path control, List<String> jobs, Consumer<String> progress)
      throws IOException {
    long deadline = System.nanoTime() + MIRROR_DEADLINE.toNanos();
    long said = System.nanoTime();
    while (true) {
      long done = 0;
      long total = 0;
      int ready = 0;
      List<String> running = new ArrayList<>();
      for (JsonNode job : qmp.execute(control, "query-block-jobs", null, QMP_DEADLINE)) {
        String id = job.path("device").asText();
        if (!jobs.contains(id)) {
          continue;
        }
        running.add(id);
        done += job.path("offset").asLong(0);
        total += job.path("len").asLong(0);
        if (job.path("ready").asBoolean(false)) {
          ready++;
        }
      }
      if (running.size() < jobs.size()) {
        List<String> gone = new ArrayList<>(jobs);
        gone.removeAll(running);
        throw new IOException("the copy of its disk ended before it caught up: " + gone);
      }
      if (ready == jobs.size()) {
        return done;
      }
      if (System.nanoTime() - said > Duration.ofSeconds(5).toNanos()) {
        progress.accept(
            "copying its disks: " + (total == 0 ? 0 : done * 100 / total) + "% of " + total);
        said = System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the copy of its disks did not catch up in " + MIRROR_DEADLINE);
      }
      sleep();
    }
  }

  private void awaitNoJobs(Path control, List<String> jobs) throws IOException {
    long deadline = System.nanoTime() + SavedMemory.TRANSFER_DEADLINE.toNanos();
    while (true) {
      boolean left = false;
      for (JsonNode job : qmp.execute(control, "query-block-jobs", null, QMP_DEADLINE)) {
        left |= jobs.contains(job.path("device").asText());
      }
      if (!left) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the copy of its disks did not complete");
      }
      sleep();
    }
  }

  /** Waits for the migration to reach {@code status}, or to complete; what QEMU says of it then. */
  private JsonNode awaitMigration(Path control, String status) throws IOException {
    return qmp.awaitMigration(
        control, status, "send the VM's memory", SavedMemory.TRANSFER_DEADLINE, POLL, QMP_DEADLINE);
  }

  /**
   * After a move cut short where nobody knows how far it got (the agent restarted): true when the
   * guest reached the other QEMU, else it is taken back and runs here.
   */
  boolean settle(Path control) throws IOException {
    List<String> jobs = new ArrayList<>();
    for (JsonNode job : qmp.execute(control, "query-block-jobs", null, QMP_DEADLINE)) {
      if (job.path("device").asText().startsWith("move-")) {
        jobs.add(job.path("device").asText());
      }
    }
    return takeBack(control, jobs);
  }

  /**
   * After a move that failed: the migration cancelled, the mirrors dropped, and the guest running
   * here again, unless the other QEMU has it already (the migration completed), for the guest must
   * never run on both.
   */
  private boolean takeBack(Path control, List<String> jobs) {
    try {
      qmp.execute(control, "migrate_cancel", QMP_DEADLINE);
    } catch (IOException ignored) {
      // nothing under way
    }
    for (String job : jobs) {
      ObjectNode cancel = qmp.arguments();
      cancel.put("device", job);
      cancel.put("force", true);
      try {
        qmp.execute(control, "block-job-cancel", cancel, QMP_DEADLINE);
      } catch (IOException ignored) {
        // ended already
      }
    }
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        String migration =
            qmp.execute(control, "query-migrate", null, QMP_DEADLINE).path("status").asText();
        if (migration.equals("completed")) {
          return true; // the other QEMU has it: this one stays paused
        }
        String status =
            qmp.execute(control, "query-status", null, QMP_DEADLINE).path("status").asText();
        if (status.equals("running")) {
          return false;
        }
        if (status.equals("paused") || System.nanoTime() > deadline) {
          qmp.execute(control, "cont", QMP_DEADLINE);
          return false;
        }
        sleep(); // still finishing or cancelling the migration
      }
    } catch (IOException ignored) {
      // QEMU is gone: its task's end says so
    }
    return false;
  }

  private void awaitControl(Path control, BooleanSupplier alive)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      if (java.nio.file.Files.exists(control)) {
        try {
          qmp.execute(control, "query-status", null, QMP_DEADLINE);
          return;
        } catch (IOException e) {
          // made, not yet listened on
        }
      }
      if (!alive.getAsBoolean()) {
        throw new IOException("QEMU ended before the VM could arrive");
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("QEMU did not open its control socket at " + control);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static String relative(Path cwd, Path socket) {
    return cwd.toAbsolutePath().relativize(socket.toAbsolutePath()).toString();
  }

  private static void sleep() throws IOException {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("the agent stopped while the VM moved");
    }
  }
}
