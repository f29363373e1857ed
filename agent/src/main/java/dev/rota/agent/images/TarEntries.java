package dev.rota.agent.images;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * Reads a tar stream (POSIX ustar, with pax and GNU long names) as far as the first regular file
 * whose name is wanted: enough to take a disk out of a container image's layer.
 */
final class TarEntries {
  private static final int BLOCK = 512;

  private TarEntries() {}

  /** A file in the tar: its name, size, and its bytes, read from the stream as they come. */
  record Entry(String name, long size, InputStream body) {}

  /**
   * The first regular file whose name (without a leading {@code ./} or {@code /}) is wanted, its
   * body positioned at its first byte; null when the tar ends without one.
   */
  static Entry find(InputStream tar, Predicate<String> wanted) throws IOException {
    String longName = null;
    byte[] header = new byte[BLOCK];
    while (true) {
      if (!readFully(tar, header)) {
        return null;
      }
      if (allZero(header)) {
        return null;
      }
      char type = (char) header[156];
      long size = size(header);
      String name = longName != null ? longName : name(header);
      longName = null;
      if (type == 'x' || type == 'L') {
        byte[] data = readBody(tar, size);
        longName = type == 'L' ? cString(data, 0, data.length) : paxPath(data);
        continue;
      }
      name = name.replaceFirst("^\\./", "").replaceFirst("^/+", "");
      if ((type == '0' || type == 0) && wanted.test(name)) {
        return new Entry(name, size, new dev.rota.agentapi.BoundedInputStream(tar, size));
      }
      skip(tar, padded(size));
    }
  }

  private static String name(byte[] h) {
    String name = cString(h, 0, 100);
    String prefix =
        new String(h, 257, 6, StandardCharsets.US_ASCII).startsWith("ustar")
            ? cString(h, 345, 155)
            : "";
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }

  private static String paxPath(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    for (String record : text.split("\n")) {
      int space = record.indexOf(' ');
      if (space > 0 && record.startsWith("path=", space + 1)) {
        return record.substring(space + 6);
      }
    }
    return null;
  }

  private static long size(byte[] h) {
    if ((h[124] & 0x80) != 0) { // base-256, for files of 8 GiB and more
      long n = 0;
      for (int i = 125; i < 136; i++) {
        n = (n << 8) | (h[i] & 0xff);
      }
      return n;
    }
    String octal = cString(h, 124, 12).strip();
    return octal.isEmpty() ? 0 : Long.parseLong(octal, 8);
  }

  private static String cString(byte[] b, int off, int len) {
    int end = off;
    while (end < off + len && b[end] != 0) {
      end++;
    }
    return new String(b, off, end - off, StandardCharsets.UTF_8);
  }

  private static boolean allZero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private static long padded(long size) {
    return (size + BLOCK - 1) / BLOCK * BLOCK;
  }

  private static byte[] readBody(InputStream in, long size) throws IOException {
    if (size > 1 << 20) {
      throw new IOException("a tar header record of " + size + " bytes");
    }
    byte[] data = in.readNBytes((int) size);
    if (data.length < size) {
      throw new EOFException("the tar ended inside a header record");
    }
    skip(in, padded(size) - size);
    return data;
  }

  private static boolean readFully(InputStream in, byte[] b) throws IOException {
    int n = in.readNBytes(b, 0, b.length);
    if (n == 0) {
      return false;
    }
    if (n < b.length) {
      throw new EOFException("the tar ended inside a header");
    }
    return true;
  }

  /** Reads past {@code n} bytes (read, not skipped: a digest of the stream must see them). */
  private static void skip(InputStream in, long n) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long left = n;
    while (left > 0) {
      int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (read < 0) {
        throw new EOFException("the tar ended inside a file");
      }
      left -= read;
    }
  }
}
