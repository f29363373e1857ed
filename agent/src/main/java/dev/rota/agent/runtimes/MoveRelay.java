package dev.rota.agent.runtimes;

import dev.rota.agent.tasks.Conduit;
import dev.rota.agentapi.TaskTunnel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;

/**
 * A socket a moving guest's QEMU connects to, on the worker it leaves: each connection is carried,
 * both ways, over a tunnel of its own to the agent of the worker it moves to ({@link TaskTunnel}),
 * which hands it to the QEMU waiting there. QEMU cannot reach another worker itself: it runs
 * confined, and the agents' links are the ones that are authenticated.
 */
final class MoveRelay implements AutoCloseable {
  /** How long closing waits for what QEMU sent to be carried on. */
  private static final java.time.Duration DRAIN = java.time.Duration.ofSeconds(10);

  /** A new tunnel to the other agent, for one connection. */
  interface Dial {
    TaskTunnel open() throws IOException;
  }

  private final ServerSocketChannel server;
  private final Path socket;
  private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

  /** The copies from QEMU to the other agent still under way. */
  private final java.util.concurrent.Phaser sending = new java.util.concurrent.Phaser(1);

  /** Why the other agent could not be reached, the first time it could not; null while it could. */
  private volatile String refused;

  private MoveRelay(ServerSocketChannel server, Path socket) {
    this.server = server;
    this.socket = socket;
  }

  /** Listens on {@code socket}, carrying each connection over a tunnel {@code dial} opens. */
  static MoveRelay listen(Path socket, Dial dial, ExecutorService pumps) throws IOException {
    Files.deleteIfExists(socket);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    // QEMU runs as the guest's own user.
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    MoveRelay relay = new MoveRelay(server, socket);
    pumps.execute(() -> relay.accept(dial, pumps));
    return relay;
  }

  private void accept(Dial dial, ExecutorService pumps) {
    while (server.isOpen()) {
      SocketChannel qemu;
      try {
        qemu = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      open.add(qemu);
      TaskTunnel tunnel;
      try {
        tunnel = dial.open();
      } catch (IOException e) {
        if (refused == null) {
          refused =
              e instanceof TaskTunnel.Refused r
                  ? "the other agent answered " + r.status() + ": " + r.getMessage()
                  : "the other agent could not be reached: " + e.getMessage();
        }
        close(qemu); // QEMU sees its connection end, and its move fail
        continue;
      }
      open.add(tunnel);
      Conduit q = Conduit.of(qemu, () -> {});
      sending.register();
      pumps.execute(
          () -> {
            try {
              pump(q.input(), tunnel.output(), q, tunnel, true);
            } finally {
              sending.arriveAndDeregister();
            }
          });
      pumps.execute(() -> pump(tunnel.input(), q.output(), q, tunnel, false));
    }
  }

  /**
   * Copies one way until its end; the end of what QEMU sends is passed on as the end of the
   * tunnel's request, and the end of the other side's answer ends the connection.
   */
  private static void pump(
      InputStream in, OutputStream out, Conduit qemu, TaskTunnel tunnel, boolean fromQemu) {
    byte[] buffer = new byte[64 * 1024];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
      if (fromQemu) {
        out.close();
        return;
      }
    } catch (IOException e) {
      // either end went away: both go
    }
    close(qemu);
    close(tunnel);
  }

  /** Why a connection could not be carried to the other agent; null when every one was. */
  String refused() {
    return refused;
  }

  private static void close(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // gone already
    }
  }

  /**
   * Stops taking connections, lets what QEMU sent reach the other agent (for a while at most), then
   * ends every connection.
   */
  @Override
  public void close() {
    close(server);
    try {
      sending.awaitAdvanceInterruptibly(
          sending.arrive(), DRAIN.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.TimeoutException e) {
      // a copy still stuck: it is cut
    }
    open.forEach(MoveRelay::close);
    try {
      Files.deleteIfExists(socket);
    } catch (IOException ignored) {
      // the task's folder goes with it
    }
  }
}
