package dev.rota.agent.runtimes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BooleanSupplier;

/**
 * A guest's memory and device state, saved to a file and loaded back, with QEMU's migration over a
 * UNIX socket: QEMU sends its state to a socket the agent listens on, and a new QEMU started with
 * {@code -incoming} takes it from a socket the agent writes to. A socket, not a file, because
 * QEMU's seccomp filter lets it start no helper ({@code exec:}) and this QEMU has no {@code file:}
 * migration.
 */
final class SavedMemory {
  private static final Duration QMP_DEADLINE = Duration.ofSeconds(3);

  /** The longest a save or load may take: the guest is paused throughout. */
  static final Duration TRANSFER_DEADLINE = Duration.ofMinutes(10);

  /** How long a QEMU just started has to listen for its incoming state. */
  private static final Duration LISTEN_DEADLINE = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(50);

  private final Qmp qmp;
  private final ScheduledExecutorService timers;

  SavedMemory(Qmp qmp, ScheduledExecutorService timers) {
    this.qmp = qmp;
    this.timers = timers;
  }

  /**
   * Pauses the guest of the QEMU whose control socket is {@code control} and saves its state to
   * {@code target}, flushed to disk. QEMU, working in {@code cwd}, sends it to {@code listen}. The
   * guest stays paused (its QEMU may now end); if the save fails it runs on, and the file is gone.
   *
   * @return the state's size in bytes
   */
  long save(Path control, Path cwd, Path listen, Path target) throws IOException {
    Files.deleteIfExists(listen);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(listen));
      // QEMU runs as the guest's own user.
      Files.setPosixFilePermissions(listen, PosixFilePermissions.fromString("rw-rw-rw-"));
      qmp.execute(control, "stop", QMP_DEADLINE);
      try {
        ObjectNode unthrottled = qmp.arguments();
        unthrottled.put("max-bandwidth", Long.MAX_VALUE / 2);
        qmp.execute(control, "migrate-set-parameters", unthrottled, QMP_DEADLINE);
        ObjectNode to = qmp.arguments();
        to.put("uri", "unix:" + cwd.toAbsolutePath().relativize(listen.toAbsolutePath()));
        qmp.execute(control, "migrate", to, QMP_DEADLINE);
        long bytes;
        ScheduledFuture<?> cut = ChannelDeadline.closeAfter(timers, server, TRANSFER_DEADLINE);
        try (SocketChannel from = server.accept();
            FileChannel out =
                FileChannel.open(
                    target,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
          bytes = copy(from, out);
          out.force(true);
        } finally {
          cut.cancel(false);
        }
        awaitMigration(control);
        return bytes;
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(target);
        try {
          qmp.execute(control, "migrate_cancel", QMP_DEADLINE);
        } catch (IOException ignored) {
          // nothing under way
        }
        qmp.execute(control, "cont", QMP_DEADLINE); // the guest goes on where it was
        throw e;
      }
    } finally {
      Files.deleteIfExists(listen);
    }
  }

  /**
   * Feeds {@code source} to the QEMU started with {@code -incoming unix:<incoming>}, then runs the
   * guest once QEMU has taken it all. {@code alive} says whether that QEMU still runs.
   */
  void load(Path control, Path incoming, Path source, BooleanSupplier alive)
      throws IOException, InterruptedException {
    SocketChannel to = connect(incoming, alive);
    ScheduledFuture<?> cut = ChannelDeadline.closeAfter(timers, to, TRANSFER_DEADLINE);
    try (to;
        FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
      long at = 0;
      long size = in.size();
      while (at < size) {
        at += in.transferTo(at, size - at, to);
      }
    } finally {
      cut.cancel(false);
    }
    long deadline = System.nanoTime() + TRANSFER_DEADLINE.toNanos();
    while (true) {
      if (!alive.getAsBoolean()) {
        throw new IOException("QEMU ended while it loaded the VM's saved memory");
      }
      String status =
          qmp.execute(control, "query-status", null, QMP_DEADLINE).path("status").asText();
      if (status.equals("paused")) {
        qmp.execute(control, "cont", QMP_DEADLINE);
        return;
      }
      if (status.equals("running")) {
        return;
      }
      if (!status.equals("inmigrate") || System.nanoTime() > deadline) {
        throw new IOException("the VM did not take its saved memory: it is " + status);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** Waits for QEMU to say the state it sent is complete. */
  private void awaitMigration(Path control) throws IOException {
    qmp.awaitMigration(
        control, "completed", "save the VM's memory", TRANSFER_DEADLINE, POLL, QMP_DEADLINE);
  }

  private SocketChannel connect(Path incoming, BooleanSupplier alive)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + LISTEN_DEADLINE.toNanos();
    while (true) {
      if (Files.exists(incoming)) {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
          channel.connect(UnixDomainSocketAddress.of(incoming));
          return channel;
        } catch (IOException e) {
          channel.close(); // made, not yet listened on
        }
      }
      if (!alive.getAsBoolean()) {
        throw new IOException("QEMU ended before it took the VM's saved memory");
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("QEMU did not listen for the VM's saved memory at " + incoming);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static long copy(SocketChannel from, FileChannel out) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    long bytes = 0;
    while (from.read(buffer) >= 0) {
      buffer.flip();
      while (buffer.hasRemaining()) {
        bytes += out.write(buffer);
      }
      buffer.clear();
    }
    return bytes;
  }
}
