package dev.rota.agent.tasks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Copies a process's output to its {@link CappedLog}: the process never blocks on it, and past the
 * cap the file keeps its newest part.
 */
final class BoundedLog implements Runnable {
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
    byte[] buffer = new byte[8192];
    // Appending, so that a cut of the file (by this thread) leaves the next write at its end.
    try (InputStream input = in;
        OutputStream out =
            Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      long size = 0;
      int n;
      while ((n = input.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
        size += n;
        if (size > CappedLog.CAP) {
          CappedLog.trim(file);
          size = Files.size(file);
        }
      }
    } catch (IOException e) {
      // the process ended or the folder went away with the task: nothing left to keep
    }
  }
}
