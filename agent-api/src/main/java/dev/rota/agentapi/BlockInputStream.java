package dev.rota.agentapi;

import java.io.IOException;
import java.io.InputStream;

/** An input stream that reads in blocks only: a single byte is a block of one. */
public abstract class BlockInputStream extends InputStream {
  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n;
    do {
      n = read(one, 0, 1);
    } while (n == 0);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public abstract int read(byte[] b, int off, int len) throws IOException;
}
