package dev.rota.cli;

/** Why a command stopped, said in one line, with the exit code that goes with it. */
public class CliException extends RuntimeException {
  private final int exitCode;

  public CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
