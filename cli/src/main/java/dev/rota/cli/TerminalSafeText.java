package dev.rota.cli;

/**
 * A guest's output made safe to print on the user's terminal, as journalctl and less do: a serial
 * console writes escape sequences that would reset the terminal ({@code ESC c}), clear it, turn off
 * its line wrapping, set its title or clipboard, or ask it where its cursor is ({@code ESC[6n}),
 * which the terminal answers as if the user had typed it into the shell. Every escape sequence
 * (CSI, OSC, and the two-byte ones), every C1 control and every C0 control but newline and tab is
 * dropped; a carriage return becomes a newline unless one follows. Text arrives in pieces (a
 * followed log), and a sequence split between two pieces is dropped whole: the filter keeps where
 * it was.
 */
final class TerminalSafeText {
  private enum State {
    TEXT,
    /** After ESC. */
    ESCAPE,
    /** In a control sequence: ESC [ parameters, intermediates, a final byte. */
    CSI,
    /** In an operating system command (or another string): ends with BEL or ESC \. */
    STRING,
    /** ESC inside a string: a backslash ends it. */
    STRING_ESCAPE,
    /** After a carriage return. */
    RETURN
  }

  private static final char ESC = 0x1b;
  private static final char BEL = 0x07;

  private State state = State.TEXT;

  /** {@code piece} with what a terminal would act on taken out. */
  String filter(String piece) {
    StringBuilder out = new StringBuilder(piece.length());
    for (int i = 0; i < piece.length(); i++) {
      char c = piece.charAt(i);
      switch (state) {
        case RETURN -> {
          out.append('\n');
          state = State.TEXT;
          if (c != '\n') {
            text(c, out);
          }
        }
        case TEXT -> text(c, out);
        case ESCAPE -> {
          if (c == '[') {
            state = State.CSI;
          } else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
            state = State.STRING; // OSC, DCS, SOS, PM, APC
          } else if (c >= 0x20 && c <= 0x2f) {
            // an intermediate byte (ESC ( B): the sequence goes on to its final byte
          } else {
            state = State.TEXT;
          }
        }
        case CSI -> {
          if (c >= 0x40 && c <= 0x7e) {
            state = State.TEXT;
          } else if (c < 0x20 || c > 0x7e) {
            state = State.TEXT; // not a well-formed sequence: it ends here, and the byte is text
            text(c, out);
          }
        }
        case STRING -> {
          if (c == BEL || c == 0x9c) {
            state = State.TEXT;
          } else if (c == ESC) {
            state = State.STRING_ESCAPE;
          }
        }
        case STRING_ESCAPE -> state = c == '\\' ? State.TEXT : State.STRING;
      }
    }
    return out.toString();
  }

  /** What is still held at the end: a carriage return with nothing after it. */
  String end() {
    boolean held = state == State.RETURN;
    state = State.TEXT;
    return held ? "\n" : "";
  }

  private void text(char c, StringBuilder out) {
    if (c == ESC) {
      state = State.ESCAPE;
    } else if (c == 0x9b) {
      state = State.CSI;
    } else if (c == 0x9d || c == 0x90) {
      state = State.STRING;
    } else if (c == '\r') {
      state = State.RETURN;
    } else if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f && (c < 0x80 || c > 0x9f))) {
      out.append(c);
    }
  }
}
