package dev.rota.core.model;

import java.util.regex.Pattern;

/**
 * A regular expression matched with a bound on its steps: a user's expression could backtrack for
 * minutes on a short value ({@code (a+)+b}), and the scheduler must not. The value is read through
 * a {@link CharSequence} that counts each character read and gives up after the bound, which counts
 * as no match: the same answer for the same value every time, whatever the machine's speed.
 */
final class BoundedMatch {
  private BoundedMatch() {}

  static boolean matches(Pattern regexp, String value, int steps) {
    try {
      return regexp.matcher(new Counted(value, steps)).matches();
    } catch (TooLong e) {
      return false;
    }
  }

  private static final class TooLong extends RuntimeException {
    TooLong() {
      super(null, null, false, false);
    }
  }

  private static final class Counted implements CharSequence {
    private final String value;
    private final int[] left;

    Counted(String value, int steps) {
      this(value, new int[] {steps});
    }

    private Counted(String value, int[] left) {
      this.value = value;
      this.left = left;
    }

    @Override
    public char charAt(int index) {
      if (--left[0] < 0) {
        throw new TooLong();
      }
      return value.charAt(index);
    }

    @Override
    public int length() {
      return value.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new Counted(value.substring(start, end), left);
    }

    @Override
    public String toString() {
      return value;
    }
  }
}
