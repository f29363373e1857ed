package dev.rota.agent.runtimes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.agent.tasks.Execution;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agentapi.ExecFrames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Commands run in a {@code qemu} guest through the QEMU guest agent ({@code qemu-ga}), which the
 * image must run on its virtio-serial port {@code org.qemu.guest_agent.0}: QEMU gives that port a
 * socket in the task's folder, and the agent speaks the guest agent's JSON lines there ({@code
 * guest-sync}, {@code guest-exec}, {@code guest-exec-status}). The guest agent takes a command's
 * stdin whole and gives its output when it ends, so this is no interactive shell. The port has one
 * client at a time: commands in one VM take turns.
 */
final class GuestAgent {
  /** How long the guest agent has to answer; no answer in time is no guest agent. */
  static final Duration ANSWER = Duration.ofSeconds(3);

  /** How long a command waits for the one before it in the same VM. */
  static final Duration TURN = Duration.ofSeconds(30);

  /**
   * How long a delivery of user data waits for a command before it in the same VM: less than its
   * caller waits for the answer, so that a busy guest is a 409 to try again, not a call timed out.
   */
  static final Duration DELIVERY_TURN = Duration.ofSeconds(10);

  /** How much of the user's input a command takes. */
  static final int MAX_INPUT = 1 << 20;

  private static final Duration POLL = Duration.ofMillis(100);

  private final ObjectMapper json = new ObjectMapper();
  private final java.util.Map<String, Semaphore> turns =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Connects to the guest agent of the task in {@code dir} and checks it answers; the command runs
   * when the execution is run. Refused (409) when the guest has no agent that answers.
   */
  Execution exec(String taskId, Path dir, List<String> command)
      throws Refusal, IOException, InterruptedException {
    Connection ready = synced(taskId, dir, TURN);
    Input input = new Input();
    return new Execution() {
      @Override
      public java.io.OutputStream stdin() {
        return input;
      }

      @Override
      public int await(ExecFrames.Writer out) throws IOException, InterruptedException {
        try (ready) {
          return ready.run(input.whole(), command, out);
        }
      }

      @Override
      public void cancel() {
        ready.close();
      }
    };
  }

  /** Where a claim's user data is kept in the guest, readable by root alone. */
  static final String USER_DATA = "/run/rota/user-data";

  /**
   * Run by the guest's shell with the user data as its input: written beside and renamed, so that
   * the guest never reads half of it; run when it is a script, detached from the delivery ({@code
   * setsid}), its output in {@code user-data.log}. Data the guest holds already is neither written
   * nor run again, so a delivery asked twice (its answer lost) runs once.
   */
  static final String TAKE_USER_DATA =
      """
      set -e
      umask 077
      mkdir -p /run/rota
      cat > %1$s.new
      if cmp -s %1$s.new %1$s; then rm -f %1$s.new; exit 0; fi
      mv -f %1$s.new %1$s
      if [ "$(head -c 2 %1$s)" = '#!' ]; then
        chmod 700 %1$s
        if command -v setsid > /dev/null; then
          setsid %1$s < /dev/null > %1$s.log 2>&1 &
        else
          %1$s < /dev/null > %1$s.log 2>&1 &
        fi
      fi
      """
          .formatted(USER_DATA);

  /**
   * Writes {@code userData} into the guest of the task in {@code dir} at {@link #USER_DATA}, and
   * runs it when it is a script ({@link #TAKE_USER_DATA}). Refused with 409 while the guest agent
   * does not answer, 422 when the guest could not take it.
   */
  void deliver(String taskId, Path dir, byte[] userData)
      throws Refusal, IOException, InterruptedException {
    if (userData.length > MAX_INPUT) {
      throw new Refusal(422, "user data of " + userData.length + " bytes: at most " + MAX_INPUT);
    }
    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    int code;
    try (Connection ready = synced(taskId, dir, DELIVERY_TURN)) {
      code =
          ready.run(
              userData, List.of("/bin/sh", "-c", TAKE_USER_DATA), new ExecFrames.Writer(framed));
    }
    if (code == 0) {
      return;
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    new ExecFrames.Reader(new ByteArrayOutputStream(), err).write(framed.toByteArray());
    String said = err.toString(StandardCharsets.UTF_8).strip();
    throw new Refusal(
        said.endsWith(NO_ANSWER) ? 409 : 422,
        "the guest of task "
            + taskId
            + " did not take its user data (exit "
            + code
            + (said.isEmpty() ? "" : ": " + said.lines().findFirst().orElse(""))
            + ")");
  }

  /** What a command says when the guest agent gave no answer to it. */
  private static final String NO_ANSWER = "the guest agent did not answer";

  /**
   * Whether the guest agent of the task in {@code dir} answers, waiting at most {@code wait} for a
   * command that holds it: one that does is answered by it, so it counts as an answer.
   */
  boolean answers(String taskId, Path dir, Duration wait) throws InterruptedException {
    try {
      synced(taskId, dir, wait).close();
      return true;
    } catch (Refusal e) {
      return e.getMessage().startsWith("another command has held");
    } catch (IOException e) {
      return false;
    }
  }

  /** A connection to the task's guest agent, in step with it; its turn held until closed. */
  private Connection synced(String taskId, Path dir, Duration wait)
      throws Refusal, IOException, InterruptedException {
    Path socket = GuestFiles.guestAgent(dir);
    if (!Files.exists(socket)) {
      throw new Refusal(409, "vm task " + taskId + " was started without a guest agent port");
    }
    Semaphore turn = turns.computeIfAbsent(taskId, id -> new Semaphore(1));
    if (!turn.tryAcquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new Refusal(409, "another command has held vm task " + taskId + " for " + wait);
    }
    Connection connection;
    try {
      connection = new Connection(SocketChannel.open(UnixDomainSocketAddress.of(socket)), turn);
    } catch (IOException e) {
      turn.release();
      throw e;
    }
    try {
      long id = System.nanoTime() & 0x7fffffffL;
      JsonNode synced = connection.call("guest-sync", json.createObjectNode().put("id", id));
      if (synced == null || synced.path("return").asLong(-1) != id) {
        throw new Refusal(
            409,
            "the guest of task "
                + taskId
                + " has no agent answering: exec in a qemu VM needs the QEMU guest agent"
                + " (qemu-guest-agent) running in its image");
      }
      Connection ready = connection;
      connection = null;
      return ready;
    } finally {
      if (connection != null) {
        connection.close();
      }
    }
  }

  /**
   * The user's input, taken whole (up to {@link #MAX_INPUT}; the rest is dropped): the guest agent
   * gives a command its stdin at its start.
   */
  private static final class Input extends ByteArrayOutputStream {
    private final java.util.concurrent.CountDownLatch ended =
        new java.util.concurrent.CountDownLatch(1);

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      super.write(b, off, Math.max(0, Math.min(len, MAX_INPUT - count)));
    }

    @Override
    public void close() {
      ended.countDown();
    }

    byte[] whole() throws InterruptedException {
      ended.await();
      return toByteArray();
    }
  }

  /** One connection to a guest agent, holding the VM's turn until closed. */
  private final class Connection implements AutoCloseable {
    private final SocketChannel channel;
    private final Semaphore turn;
    private final Selector selector;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    private boolean closed;

    Connection(SocketChannel channel, Semaphore turn) throws IOException {
      this.channel = channel;
      this.turn = turn;
      channel.configureBlocking(false);
      this.selector = Selector.open();
      channel.register(selector, SelectionKey.OP_READ);
    }

    int run(byte[] input, List<String> command, ExecFrames.Writer out)
        throws IOException, InterruptedException {
      ObjectNode args = json.createObjectNode().put("path", command.get(0));
      command.subList(1, command.size()).forEach(args.putArray("arg")::add);
      if (command.size() == 1) {
        args.putArray("arg");
      }
      args.put("capture-output", true);
      if (input.length > 0) {
        args.put("input-data", Base64.getEncoder().encodeToString(input));
      }
      JsonNode started = call("guest-exec", args);
      if (started == null || !started.has("return")) {
        String why =
            started == null
                ? NO_ANSWER
                : started.path("error").path("desc").asText("the guest agent refused it");
        byte[] said =
            ("cannot run " + command.get(0) + " in the guest: " + why + "\n")
                .getBytes(StandardCharsets.UTF_8);
        out.write(ExecFrames.STDERR, said, 0, said.length);
        return 127;
      }
      long pid = started.path("return").path("pid").asLong();
      while (true) {
        JsonNode status =
            call("guest-exec-status", json.createObjectNode().put("pid", pid)).path("return");
        if (status.path("exited").asBoolean(false)) {
          send(out, ExecFrames.STDOUT, status.path("out-data"));
          send(out, ExecFrames.STDERR, status.path("err-data"));
          return status.has("signal")
              ? 128 + status.path("signal").asInt()
              : status.path("exitcode").asInt();
        }
        Thread.sleep(POLL.toMillis());
      }
    }

    private void send(ExecFrames.Writer out, int channel, JsonNode data) throws IOException {
      if (data.isTextual()) {
        byte[] bytes = Base64.getDecoder().decode(data.asText());
        out.write(channel, bytes, 0, bytes.length);
      }
    }

    /** The guest agent's answer to one command, or null when it gave none in time. */
    JsonNode call(String command, ObjectNode arguments) throws IOException {
      ObjectNode request = json.createObjectNode().put("execute", command);
      request.set("arguments", arguments);
      ByteBuffer out =
          ByteBuffer.wrap(
              (json.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
      while (out.hasRemaining()) {
        channel.write(out);
      }
      long deadline = System.nanoTime() + ANSWER.toNanos();
      while (true) {
        String answer = nextLine(deadline);
        if (answer == null) {
          return null;
        }
        JsonNode node = json.readTree(answer);
        if (node.has("return") || node.has("error")) {
          return node;
        }
      }
    }

    private String nextLine(long deadline) throws IOException {
      while (true) {
        buffer.flip();
        while (buffer.hasRemaining()) {
          byte b = buffer.get();
          if (b == '\n') {
            String text = line.toString(StandardCharsets.UTF_8).strip();
            line.reset();
            buffer.compact();
            if (!text.isEmpty()) {
              return text;
            }
            buffer.flip();
          } else {
            line.write(b);
          }
        }
        buffer.clear();
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return null;
        }
        selector.select(left);
        selector.selectedKeys().clear();
        if (channel.read(buffer) < 0) {
          throw new IOException("the guest agent's port closed");
        }
      }
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        selector.close();
        channel.close();
      } catch (IOException e) {
        // closing
      } finally {
        turn.release();
      }
    }
  }
}
