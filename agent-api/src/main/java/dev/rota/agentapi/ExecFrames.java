package dev.rota.agentapi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * How a command run in a task sends back its output and its end, over one byte stream (the answer
 * to {@link TaskTunnel#exec}, carried unchanged to the user): frames of one channel byte, a length
 * (four bytes, big-endian) and that many bytes. Channel 1 is the command's stdout, 2 its stderr, 3
 * its exit code (four bytes), the last frame.
 */
public final class ExecFrames {
  public static final int STDOUT = 1;
  public static final int STDERR = 2;
  public static final int EXIT = 3;

  private ExecFrames() {}

  /** Writes frames; each is flushed at once, and frames from two threads do not interleave. */
  public static final class Writer {
    private final OutputStream out;

    public Writer(OutputStream out) {
      this.out = out;
    }

    public synchronized void write(int channel, byte[] bytes, int off, int len) throws IOException {
      if (len == 0) {
        return;
      }
      out.write(header(channel, len));
      out.write(bytes, off, len);
      out.flush();
    }

    public synchronized void exit(int code) throws IOException {
      out.write(header(EXIT, 4));
      out.write(
          new byte[] {
            (byte) (code >>> 24), (byte) (code >>> 16), (byte) (code >>> 8), (byte) code
          });
      out.flush();
    }

    private static byte[] header(int channel, int len) {
      return new byte[] {
        (byte) channel, (byte) (len >>> 24), (byte) (len >>> 16), (byte) (len >>> 8), (byte) len
      };
    }
  }

  /**
   * Takes the stream in whatever pieces it comes and sends each frame's bytes to stdout or stderr;
   * {@link #exitCode()} is the command's once its last frame came.
   */
  public static final class Reader extends OutputStream {
    private final OutputStream stdout;
    private final OutputStream stderr;
    private final byte[] header = new byte[5];
    private int headerRead;
    private int left;
    private int channel;
    private final byte[] code = new byte[4];
    private Integer exitCode;

    public Reader(OutputStream stdout, OutputStream stderr) {
      this.stdout = stdout;
      this.stderr = stderr;
    }

    /** The command's exit code, or null while it has not ended. */
    public Integer exitCode() {
      return exitCode;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      int end = off + len;
      while (off < end) {
        if (headerRead < header.length) {
          header[headerRead++] = b[off++];
          if (headerRead == header.length) {
            channel = header[0];
            left =
                ((header[1] & 0xff) << 24)
                    | ((header[2] & 0xff) << 16)
                    | ((header[3] & 0xff) << 8)
                    | (header[4] & 0xff);
            if (channel < STDOUT || channel > EXIT || left < 0 || (channel == EXIT && left != 4)) {
              throw new IOException("the command's output is not in exec frames");
            }
          }
          continue;
        }
        int n = Math.min(left, end - off);
        switch (channel) {
          case STDOUT -> stdout.write(b, off, n);
          case STDERR -> stderr.write(b, off, n);
          default -> System.arraycopy(b, off, code, 4 - left, n);
        }
        off += n;
        left -= n;
        if (left == 0) {
          headerRead = 0;
          if (channel == EXIT) {
            exitCode =
                ((code[0] & 0xff) << 24)
                    | ((code[1] & 0xff) << 16)
                    | ((code[2] & 0xff) << 8)
                    | (code[3] & 0xff);
          } else {
            (channel == STDOUT ? stdout : stderr).flush();
          }
        }
      }
    }
  }
}
