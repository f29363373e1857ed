package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/** Signals the fault tests send to the processes they run: STOP to freeze one, CONT to thaw it. */
final class Signals {
  private Signals() {}

  static void send(String signal, long pid) throws Exception {
    List<String> command = List.of("kill", "-" + signal, Long.toString(pid));
    assertEquals(0, new ProcessBuilder(command).inheritIO().start().waitFor(), "kill -" + signal);
  }
}
