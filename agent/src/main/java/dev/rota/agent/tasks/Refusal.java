package dev.rota.agent.tasks;

/**
 * Why the agent will not open a way into a task (a port, its console, a command in it): the
 * answer's status and, in one line, why.
 */
public final class Refusal extends Exception {
  private final int status;

  public Refusal(int status, String why) {
    super(why);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
