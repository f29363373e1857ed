package dev.rota.agentapi;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A connection into a running task through its agent: to one of its named ports ({@link #port}), to
 * its serial console ({@link #console}) or to a command run in it ({@link #exec}, its output in
 * {@link ExecFrames}). Full duplex over one HTTP/1.1 exchange, which the JDK's HTTP client cannot
 * hold, so it is spoken here over a socket the caller connected (TLS with the agent's pinned
 * certificate, or plain HTTP). What is written goes out as the request's chunks; what is read is
 * the answer's chunks. Closing the output tells the task the user has finished sending; the task
 * closing its end ends the input.
 */
public final class TaskTunnel implements Closeable {
  /** The agent refused the tunnel: its status and its problem's detail. */
  public static final class Refused extends IOException {
    private final int status;

    Refused(int status, String detail) {
      super(detail);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private TaskTunnel(Socket socket, InputStream in, OutputStream out) {
    this.socket = socket;
    this.in = in;
    this.out = out;
  }

  /** The request target of a connection to a task's named port. */
  public static String port(String taskId, String port) {
    return "/v1/tasks/" + taskId + "/ports/" + port + "/connect";
  }

  /** The request target of a task's serial console. */
  public static String console(String taskId) {
    return "/v1/tasks/" + taskId + "/console";
  }

  /** The request target of {@code command} run in a task. */
  public static String exec(String taskId, java.util.List<String> command) {
    return "/v1/tasks/" + taskId + "/exec" + commandQuery(command);
  }

  /**
   * The request target of a VM arriving at task {@code taskId} by a live move: its memory, or a
   * connection to its disks ({@link LiveMove#CHANNELS}).
   */
  public static String incoming(String taskId, String channel) {
    return "/v1/tasks/" + taskId + "/incoming/" + channel;
  }

  /** A command as a query, {@code ?command=sh&command=-c&command=...}: one parameter per word. */
  public static String commandQuery(java.util.List<String> command) {
    StringBuilder query = new StringBuilder();
    for (String word : command) {
      query
          .append(query.length() == 0 ? '?' : '&')
          .append("command=")
          .append(java.net.URLEncoder.encode(word, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    return query.toString();
  }

  /**
   * Connects to the agent at {@code endpoint} ({@code https://host:port} over {@code tls}, or
   * {@code http://}) and asks it for {@code target} with {@code secret}; {@code timeout} bounds the
   * connection and the answer, after which the tunnel waits as long as its ends are quiet.
   *
   * @param tls what trusts the agent's certificate (its pin); null over plain HTTP
   */
  public static TaskTunnel dial(
      java.net.URI endpoint,
      javax.net.ssl.SSLContext tls,
      String secret,
      String target,
      java.time.Duration timeout)
      throws IOException {
    int port = endpoint.getPort() >= 0 ? endpoint.getPort() : tls == null ? 80 : 443;
    Socket socket = tls == null ? new Socket() : tls.getSocketFactory().createSocket();
    try {
      socket.connect(
          new java.net.InetSocketAddress(endpoint.getHost(), port), (int) timeout.toMillis());
      socket.setTcpNoDelay(true);
      socket.setSoTimeout((int) timeout.toMillis());
      TaskTunnel tunnel =
          open(socket, endpoint.getHost() + ":" + port, secret == null ? "" : secret, target);
      socket.setSoTimeout(0);
      return tunnel;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Asks the agent at the other end of {@code socket} for {@code target} ({@link #port}, {@link
   * #console}, {@link #exec}).
   *
   * @throws Refused when the agent answers anything but 200
   */
  public static TaskTunnel open(Socket socket, String authority, String secret, String target)
      throws IOException {
    OutputStream raw = socket.getOutputStream();
    raw.write(
        ("POST "
                + target
                + " HTTP/1.1\r\n"
                + "Host: "
                + authority
                + "\r\nAuthorization: Bearer "
                + secret
                + "\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    raw.flush();
    BufferedInputStream from = new BufferedInputStream(socket.getInputStream());
    String status = line(from);
    String[] parts = status.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("the agent did not answer in HTTP/1.1: " + status);
    }
    int code = Integer.parseInt(parts[1]);
    long length = -1;
    boolean chunked = false;
    for (String header = line(from); !header.isEmpty(); header = line(from)) {
      String h = header.toLowerCase(Locale.ROOT);
      if (h.startsWith("content-length:")) {
        length = Long.parseLong(h.substring("content-length:".length()).strip());
      } else if (h.startsWith("transfer-encoding:") && h.contains("chunked")) {
        chunked = true;
      }
    }
    InputStream body =
        chunked ? new Chunked(from) : length >= 0 ? new BoundedInputStream(from, length) : from;
    if (code != 200) {
      String detail = new String(body.readNBytes(8192), StandardCharsets.UTF_8);
      int at = detail.indexOf("\"detail\":\"");
      if (at >= 0) {
        detail = jsonString(detail, at + 10);
      }
      socket.close();
      throw new Refused(code, detail);
    }
    return new TaskTunnel(socket, body, new ChunkWriter(raw, socket));
  }

  /** What the VM sends. */
  public InputStream input() {
    return in;
  }

  /** What goes to the VM; closing it tells the VM that nothing more will come. */
  public OutputStream output() {
    return out;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** The JSON string whose text starts at {@code from}, its escapes undone, up to its quote. */
  private static String jsonString(String json, int from) {
    StringBuilder text = new StringBuilder();
    for (int i = from; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '"') {
        break;
      }
      if (c == '\\' && i + 1 < json.length()) {
        char e = json.charAt(++i);
        switch (e) {
          case 'n' -> text.append('\n');
          case 't' -> text.append('\t');
          case 'u' -> {
            if (i + 4 < json.length()) {
              text.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
              i += 4;
            }
          }
          default -> text.append(e);
        }
      } else {
        text.append(c);
      }
    }
    return text.toString();
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (c != '\r') {
        b.write(c);
      }
      if (b.size() > 8192) {
        throw new IOException("a line of the agent's answer is too long");
      }
    }
    if (c < 0 && b.size() == 0) {
      throw new EOFException("the agent closed the connection");
    }
    return b.toString(StandardCharsets.US_ASCII);
  }

  /** A chunked body, read as it comes. */
  private static final class Chunked extends BlockInputStream {
    private final InputStream in;
    private long left;
    private boolean done;

    Chunked(InputStream in) {
      this.in = in;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (done) {
        return -1;
      }
      if (left == 0) {
        String size = line(in);
        int semicolon = size.indexOf(';');
        left = Long.parseLong((semicolon >= 0 ? size.substring(0, semicolon) : size).strip(), 16);
        if (left == 0) {
          while (!line(in).isEmpty()) {
            // trailers
          }
          done = true;
          return -1;
        }
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("the agent's answer ended inside a chunk");
      }
      left -= n;
      if (left == 0) {
        line(in); // the chunk's CRLF
      }
      return n;
    }
  }

  /** Writes each write as a chunk, sent at once; closing sends the last chunk. */
  private static final class ChunkWriter extends OutputStream {
    private final OutputStream out;
    private final Socket socket;
    private boolean closed;

    ChunkWriter(OutputStream out, Socket socket) {
      this.out = out;
      this.socket = socket;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return;
      }
      out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(b, off, len);
      out.write(CRLF);
      out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
      if (!closed && !socket.isClosed()) {
        closed = true;
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    }

    private static final byte[] CRLF = {'\r', '\n'};
  }
}
