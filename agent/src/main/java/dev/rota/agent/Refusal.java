package dev.rota.agent;

/**
 * Why the agent will not open a way into a task (a port, its console, a command in it): the
 * answer's status and, in one line, why.
 */
final class Refusal extends Exception {
  private final int status;

  Refusal(int status, String why) {
    super(why);
    this.status = status;
  }

  int status() {
    return status;
  }
}
