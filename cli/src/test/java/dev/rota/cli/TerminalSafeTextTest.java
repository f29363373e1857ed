package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TerminalSafeTextTest {
  /** {@code \e} in the table is ESC, {@code \r} a carriage return, {@code \a} BEL. */
  private static String unescape(String s) {
    return s.replace("\\e", "\u001b")
        .replace("\\r", "\r")
        .replace("\\a", "\u0007")
        .replace("\\n", "\n");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          a serial console's reset and clear  | \\ec\\e[?7l\\e[2JROTA-GUEST-UP\\r\\n | ROTA-GUEST-UP\\n
          a cursor query the terminal answers | before\\e[6nafter\\n                 | beforeafter\\n
          colours                             | \\e[1;31mred\\e[0m\\n                | red\\n
          a title set by OSC, BEL ended       | \\e]0;pwned\\ashown\\n                | shown\\n
          a clipboard write, ST ended         | \\e]52;c;aGk=\\e\\shown\\n           | shown\\n
          a charset switch                    | \\e(Bplain\\n                         | plain\\n
          a lone carriage return              | 100%\\rdone\\n                        | 100%\\ndone\\n
          C1 CSI                              | a\u009b6nb\\n                         | ab\\n
          other controls                      | a\u0008\u0000\u007fb\\tc\\n           | ab\\tc\\n
          text as it is                       | caf\u00e9 \u2713\\n                   | caf\u00e9 \u2713\\n
          """)
  void whatATerminalWouldActOnIsLeftOut(String what, String written, String shown) {
    TerminalSafeText safe = new TerminalSafeText();
    assertEquals(unescape(shown), safe.filter(unescape(written)) + safe.end(), what);
  }

  @ParameterizedTest(name = "split at {0}")
  @CsvSource({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"})
  void aSequenceSplitBetweenPiecesIsLeftOutWhole(int at) {
    String written = unescape("x\\e[6n\\e]0;t\\ay\\r\\nz");
    TerminalSafeText safe = new TerminalSafeText();
    String shown =
        safe.filter(written.substring(0, Math.min(at, written.length())))
            + safe.filter(written.substring(Math.min(at, written.length())))
            + safe.end();
    assertEquals("xy\nz", shown);
  }
}
