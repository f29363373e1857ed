package dev.rota.agent.runtimes;

import java.nio.file.Path;

/**
 * Where a {@code qemu} task's guest keeps its files: a folder of the task's that its QEMU owns (its
 * control sockets, its disk overlay and seed), apart from the agent's own records beside it, which
 * a confined QEMU can read nothing of and change nothing in.
 */
final class GuestFiles {
  static final String FOLDER = "guest";

  private GuestFiles() {}

  static Path folder(Path taskDir) {
    return taskDir.resolve(FOLDER);
  }

  /** The serial console's socket. */
  static Path console(Path taskDir) {
    return folder(taskDir).resolve("console.sock");
  }

  /** QMP's socket, by which the agent powers the guest down. */
  static Path qmp(Path taskDir) {
    return folder(taskDir).resolve("qmp.sock");
  }

  /** The socket a resuming QEMU takes its saved memory from. */
  static Path incoming(Path taskDir) {
    return folder(taskDir).resolve("in.sock");
  }

  /** The QEMU guest agent's socket, by which commands run in the guest. */
  static Path guestAgent(Path taskDir) {
    return folder(taskDir).resolve("qga.sock");
  }
}
