package dev.rota.host;

import dev.rota.core.failure.Causes;
import dev.rota.scheduler.settings.InvalidSettingException;
import io.micronaut.core.convert.exceptions.ConversionErrorException;

/** A reason the host cannot start, worded as the one line it prints before exiting. */
public class StartupException extends RuntimeException {
  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The one line for a failure during the named start-up step: a reason already worded for people
   * is kept; a setting that does not convert is named with its value; anything else gets its
   * innermost message.
   */
  public static StartupException describe(String step, Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StartupException startup) {
        return startup;
      }
      if (t instanceof InvalidSettingException invalid) {
        return new StartupException(invalid.getMessage(), failure);
      }
      if (t instanceof ConversionErrorException conversion) {
        return new StartupException(
            "setting "
                + conversion.getArgument().getName()
                + " has a value that cannot be used ("
                + rootMessage(conversion)
                + ")",
            failure);
      }
    }
    return new StartupException(step + " failed: " + rootMessage(failure), failure);
  }

  /** The innermost cause's message, on one line. */
  public static String rootMessage(Throwable t) {
    Throwable root = Causes.root(t);
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return message.lines().findFirst().orElse("").strip();
  }
}
