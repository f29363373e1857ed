package dev.rota.agent.tasks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A byte stream both ways into a running task, that a tunnel carries ({@link PortTunnels}): a
 * connection to one of its ports, or to its console's socket. Closing the output half-closes it;
 * {@link #close} ends it and runs {@code onClose} once.
 */
public final class Conduit implements AutoCloseable {
  private final InputStream in;
  private final OutputStream out;
  private final Closing shutdownOutput;
  private final Closing close;
  private boolean closed;

  /** Closing one direction or the whole. */
  interface Closing {
    void run() throws IOException;
  }

  private Conduit(InputStream in, OutputStream out, Closing shutdownOutput, Closing close) {
    this.in = in;
    this.out = out;
    this.shutdownOutput = shutdownOutput;
    this.close = close;
  }

  public static Conduit of(Socket s) throws IOException {
    return new Conduit(s.getInputStream(), s.getOutputStream(), s::shutdownOutput, s::close);
  }

  /**
   * A connection to a Unix socket; {@code onClose} runs once when it ends. Reads and writes go to
   * the channel directly: the JDK's channel streams would hold one lock for both, and a read
   * waiting for the task would hold up every write to it.
   */
  public static Conduit unix(Path socket, Runnable onClose) throws IOException {
    return of(SocketChannel.open(UnixDomainSocketAddress.of(socket)), onClose);
  }

  /** A connection made or accepted already, in blocking mode; {@code onClose} as above. */
  public static Conduit of(SocketChannel channel, Runnable onClose) {
    InputStream in =
        new dev.rota.agentapi.BlockInputStream() {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len));
          }
        };
    OutputStream out =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
              channel.write(buffer);
            }
          }
        };
    return new Conduit(
        in,
        out,
        channel::shutdownOutput,
        () -> {
          try {
            channel.close();
          } finally {
            onClose.run();
          }
        });
  }

  public InputStream input() {
    return in;
  }

  public OutputStream output() {
    return out;
  }

  public void shutdownOutput() throws IOException {
    shutdownOutput.run();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      close.run();
    } catch (IOException e) {
      // closing
    }
  }
}
