package dev.rota.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The QEMU processes of guests whose tasks' folders are under a folder: a guest's QEMU works in its
 * task's folder, and is told its files by paths from there, so its working folder says whose it is.
 */
public final class GuestProcesses {
  private GuestProcesses() {}

  /** The live QEMU processes working in {@code folder} or below it. */
  public static List<ProcessHandle> under(Path folder) {
    Path top = folder.toAbsolutePath().normalize();
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.isAlive()
                    && p.info().command().map(c -> c.contains("qemu-system")).orElse(false)
                    && workingIn(p, top))
        .toList();
  }

  private static boolean workingIn(ProcessHandle p, Path top) {
    try {
      return Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "cwd"))
          .startsWith(top);
    } catch (IOException | UnsupportedOperationException e) {
      return false; // gone, or not Linux
    }
  }
}
