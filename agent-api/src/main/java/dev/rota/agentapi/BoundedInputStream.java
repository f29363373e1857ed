package dev.rota.agentapi;

import java.io.IOException;
import java.io.InputStream;

/**
 * The next {@code length} bytes of a stream, no more (a body of a known length, a file in a tar);
 * it ends early if the stream does.
 */
public final class BoundedInputStream extends BlockInputStream {
  private final InputStream in;
  private long left;

  public BoundedInputStream(InputStream in, long length) {
    this.in = in;
    this.left = length;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (left <= 0) {
      return -1;
    }
    int n = in.read(b, off, (int) Math.min(len, left));
    if (n > 0) {
      left -= n;
    }
    return n;
  }
}
