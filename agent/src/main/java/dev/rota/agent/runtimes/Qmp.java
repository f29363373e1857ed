package dev.rota.agent.runtimes;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;

/**
 * QEMU's machine protocol (QMP), over the UNIX socket each VM's QEMU listens on: one command at a
 * time, each within a deadline, so that a QEMU that hangs cannot hang the agent.
 */
final class Qmp {
  /**
   * The longest a UNIX socket's path may be (Linux's {@code sun_path}, less its terminating NUL).
   */
  static final int MAX_SOCKET_PATH = 107;

  /** Reads and writes the protocol's JSON: one mapper, as health checks call it every period. */
  private final com.fasterxml.jackson.databind.ObjectMapper json =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** Where deadlines are kept: a deadline closes the socket, which ends a read waiting on it. */
  private final ScheduledExecutorService timers;

  Qmp(ScheduledExecutorService timers) {
    this.timers = timers;
  }

  /** Sends {@code command} (e.g. {@code system_powerdown}) and returns QEMU's answer line. */
  String execute(Path socket, String command, Duration deadline) throws IOException {
    return call(socket, "{\"execute\":\"" + command + "\"}", deadline);
  }

  /**
   * Sends {@code command} with {@code arguments} and returns what QEMU answered ({@code return}'s
   * value).
   */
  com.fasterxml.jackson.databind.JsonNode execute(
      Path socket,
      String command,
      com.fasterxml.jackson.databind.node.ObjectNode arguments,
      Duration deadline)
      throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode request = json.createObjectNode();
    request.put("execute", command);
    if (arguments != null) {
      request.set("arguments", arguments);
    }
    return json.readTree(call(socket, request.toString(), deadline)).path("return");
  }

  /**
   * Polls QEMU's migration (to a file or to another QEMU) every {@code poll} until it reaches
   * {@code status} or completes, and returns its state then. It fails when the migration failed or
   * was cancelled, saying it could not {@code what} (e.g. "save the VM's memory"), or when it has
   * not got there within {@code within}.
   */
  com.fasterxml.jackson.databind.JsonNode awaitMigration(
      Path socket, String status, String what, Duration within, Duration poll, Duration deadline)
      throws IOException {
    long until = System.nanoTime() + within.toNanos();
    while (true) {
      com.fasterxml.jackson.databind.JsonNode state =
          execute(socket, "query-migrate", null, deadline);
      String now = state.path("status").asText();
      if (now.equals(status) || now.equals("completed")) {
        return state;
      }
      if (now.equals("failed") || now.equals("cancelled")) {
        throw new IOException(
            "QEMU could not " + what + ": " + state.path("error-desc").asText(now));
      }
      if (System.nanoTime() > until) {
        throw new IOException("QEMU did not " + what + " in time: " + now);
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("the agent stopped before QEMU could " + what);
      }
    }
  }

  /** An empty object of arguments, to fill in. */
  com.fasterxml.jackson.databind.node.ObjectNode arguments() {
    return json.createObjectNode();
  }

  /** What QEMU's human monitor answers {@code commandLine} ({@code info usernet}) with. */
  String human(Path socket, String commandLine, Duration deadline) throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode line = arguments();
    line.put("command-line", commandLine);
    return execute(socket, "human-monitor-command", line, deadline).asText();
  }

  private String call(Path socket, String request, Duration deadline) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ScheduledFuture<?> cut = ChannelDeadline.closeAfter(timers, channel, deadline);
      try {
        channel.connect(UnixDomainSocketAddress.of(socket));
        Lines lines = new Lines(channel);
        lines.until("\"QMP\"");
        send(channel, "{\"execute\":\"qmp_capabilities\"}");
        lines.until("\"return\"");
        send(channel, request);
        return lines.until("\"return\"");
      } finally {
        cut.cancel(false);
      }
    }
  }

  private static void send(SocketChannel channel, String line) throws IOException {
    ByteBuffer out = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    while (out.hasRemaining()) {
      channel.write(out);
    }
  }

  /** QEMU's answers, a JSON object a line, with events between them. */
  private static final class Lines {
    private final SocketChannel channel;
    private final StringBuilder pending = new StringBuilder();
    private final ByteBuffer buffer = ByteBuffer.allocate(8192);

    Lines(SocketChannel channel) {
      this.channel = channel;
    }

    /** The next line holding {@code marker}; an error answer is an {@link IOException}. */
    String until(String marker) throws IOException {
      while (true) {
        int nl;
        while ((nl = pending.indexOf("\n")) >= 0) {
          String line = pending.substring(0, nl).strip();
          pending.delete(0, nl + 1);
          if (line.contains("\"error\"")) {
            throw new IOException("QEMU refused: " + line);
          }
          if (line.contains(marker)) {
            return line;
          }
        }
        buffer.clear();
        if (channel.read(buffer) < 0) {
          throw new IOException("QEMU closed its control socket");
        }
        buffer.flip();
        pending.append(StandardCharsets.UTF_8.decode(buffer));
      }
    }
  }
}
