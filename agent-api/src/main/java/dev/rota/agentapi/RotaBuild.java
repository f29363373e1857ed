package dev.rota.agentapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;

/**
 * The release this code is and the commit it was built from, as the build wrote them into the jar.
 * The CLI, the host's banner and API, and the agent's registration all say it, so that a person can
 * tell which build answers.
 *
 * @param version the release version, {@code 0.1.0}
 * @param commit the commit's abbreviated hash, or null when built outside a git checkout
 */
public record RotaBuild(String version, String commit) {

  /** What this jar was built as. */
  public static RotaBuild current() {
    Properties p = new Properties();
    try (InputStream in = RotaBuild.class.getResourceAsStream("build.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return of(p);
  }

  /** The build a properties file describes; placeholders left by the build count as unknown. */
  static RotaBuild of(Properties p) {
    return new RotaBuild(
        filled(p.getProperty("version")).orElse("unknown"),
        filled(p.getProperty("commit")).orElse(null));
  }

  /**
   * {@code 0.1.0+<commit>}: the version, and the commit as semantic versioning's build metadata.
   */
  @Override
  public String toString() {
    return commit == null ? version : version + "+" + commit;
  }

  /** {@code 0.1.0 (commit <commit>)}: as a person reads it. */
  public String described() {
    return commit == null ? version : version + " (commit " + commit + ")";
  }

  /** A {@code User-Agent} header's value for {@code product}: {@code rota-agent/0.1.0+<commit>}. */
  public String userAgent(String product) {
    return product + "/" + this;
  }

  /**
   * The build a {@code User-Agent} of {@code product} names, as {@link #userAgent} wrote it; empty
   * for another client's or a malformed one, which is shown as unknown rather than refused.
   */
  public static Optional<String> fromUserAgent(String product, String header) {
    if (header == null || !header.startsWith(product + "/")) {
      return Optional.empty();
    }
    String build = header.substring(product.length() + 1).split(" ", 2)[0];
    return build.matches("[0-9A-Za-z.+-]{1,128}") ? Optional.of(build) : Optional.empty();
  }

  /**
   * What a build outside git, or one that skipped filtering, leaves: a placeholder, not a value.
   */
  private static Optional<String> filled(String value) {
    return value == null || value.isBlank() || value.startsWith("${")
        ? Optional.empty()
        : Optional.of(value.trim());
  }
}
