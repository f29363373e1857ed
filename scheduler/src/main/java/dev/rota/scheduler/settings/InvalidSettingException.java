package dev.rota.scheduler.settings;

/**
 * A setting whose value Rota cannot run with; its message is the one line a failed start prints.
 */
public class InvalidSettingException extends RuntimeException {
  public InvalidSettingException(String property, String value, String expectation) {
    super("setting " + property + "=" + value + " " + expectation);
  }
}
