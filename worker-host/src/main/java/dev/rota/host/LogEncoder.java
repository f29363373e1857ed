package dev.rota.host;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import java.util.Optional;
import java.util.function.Function;

/**
 * The host's log lines: {@code key=value} text by default, or one JSON object a line with {@code
 * ROTA_LOG_FORMAT=json}, for a log shipper that takes JSON. The text's pattern is logback.xml's.
 */
public class LogEncoder extends EncoderBase<ILoggingEvent> {
  static final String VARIABLE = "ROTA_LOG_FORMAT";

  private String pattern;
  private Encoder<ILoggingEvent> delegate;
  private Function<String, String> env = System::getenv;

  /** Where the format is read from: the environment, or a test's. */
  void setEnv(Function<String, String> env) {
    this.env = env;
  }

  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  /** The format asked for, if it is one there is; empty for the default, text. */
  static Optional<String> asked(Function<String, String> env) {
    return Optional.ofNullable(env.apply(VARIABLE)).filter(v -> !v.isBlank());
  }

  /** Why the format asked for cannot be used, if it cannot: the host refuses to start. */
  static Optional<String> problem(Function<String, String> env) {
    return asked(env)
        .filter(v -> !v.equals("text") && !v.equals("json"))
        .map(v -> VARIABLE + "=" + v + " must be text or json");
  }

  @Override
  public void start() {
    if (asked(env).filter("json"::equals).isPresent()) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(getContext());
      delegate = json;
    } else {
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setContext(getContext());
      text.setPattern(pattern);
      delegate = text;
    }
    delegate.start();
    super.start();
  }

  @Override
  public void stop() {
    if (delegate != null) {
      delegate.stop();
    }
    super.stop();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }
}
