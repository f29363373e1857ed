package dev.rota.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Copies a process's output to a file, up to a cap, so a chatty task cannot fill the worker's disk;
 * past the cap it keeps reading (the process must not block) and notes what it dropped.
 */
final class BoundedLog implements Runnable {
  static final long CAP = 4L * 1024 * 1024;

  private final InputStream in;
  private final Path file;

  BoundedLog(InputStream in, Path file) {
    this.in = in;
    this.file = file;
  }

  static void follow(InputStream in, Path file, String name) {
    Thread t = new Thread(new BoundedLog(in, file), name);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void run() {
    long written = 0;
    long dropped = 0;
    byte[] buffer = new byte[8192];
    try (InputStream input = in;
        OutputStream out = Files.newOutputStream(file)) {
      int n;
      while ((n = input.read(buffer)) >= 0) {
        int keep = (int) Math.max(0, Math.min(n, CAP - written));
        if (keep > 0) {
          out.write(buffer, 0, keep);
          out.flush();
          written += keep;
        }
        dropped += n - keep;
      }
      if (dropped > 0) {
        out.write(
            ("\n[rota-agent: " + dropped + " more bytes dropped past the " + CAP + " byte cap]\n")
                .getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      // the process ended or the folder went away with the task: nothing left to keep
    }
  }
}
