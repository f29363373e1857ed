package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.Needs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code .ci} scripts install through {@code .ci/apt}, which waits while another package
 * manager holds apt's lock instead of giving up: given up, the tests that need what it installs
 * were skipped in a run that would otherwise have been green.
 */
class CiAptTest {
  private static final List<Path> APT_LOCKS =
      List.of(
          Path.of("/var/lib/dpkg/lock-frontend"),
          Path.of("/var/lib/dpkg/lock"),
          Path.of("/var/lib/apt/lists/lock"));

  @Test
  void anInstallWaitsForAnotherPackageManagerToLetGoOfItsLock() throws Exception {
    Needs.had(
        "root".equals(System.getProperty("user.name"))
            && Files.isDirectory(Path.of("/var/lib/dpkg")),
        "apt's lock is root's, on Debian: the installer's wait is not tried here");
    List<FileChannel> held = new ArrayList<>();
    List<String> said = new ArrayList<>();
    Process install;
    try {
      // The locks as apt and dpkg take them (fcntl), as an unattended upgrade would hold them.
      for (Path lock : APT_LOCKS) {
        FileChannel channel =
            FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        held.add(channel);
        FileLock taken = channel.tryLock();
        Needs.had(taken != null, "another package manager holds " + lock + " already");
      }
      install =
          new ProcessBuilder(
                  "bash", RealServices.root().resolve(".ci/apt").toString(), "install", "tmux")
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      BufferedReader err =
          new BufferedReader(
              new InputStreamReader(install.getErrorStream(), StandardCharsets.UTF_8));
      for (String line; (line = err.readLine()) != null; ) {
        said.add(line);
        if (line.contains("waiting for it")) {
          break; // it saw the lock held, and said so
        }
      }
      assertTrue(install.isAlive(), "it waits rather than giving up: " + said);
    } finally {
      for (FileChannel channel : held) {
        channel.close(); // lets go of the lock
      }
    }
    assertTrue(install.waitFor(10, TimeUnit.MINUTES), "it went on once the lock was free");
    said.addAll(
        new String(install.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .toList());
    assertEquals(0, install.exitValue(), "installed once the lock was free: " + said);
    assertTrue(
        said.stream().anyMatch(l -> l.contains("another package manager holds apt's lock")),
        said.toString());
  }
}
