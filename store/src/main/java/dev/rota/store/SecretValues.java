package dev.rota.store;

import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The values of secrets, opened for the one moment a VM's start needs them. */
@Singleton
public class SecretValues {
  private final SecretRepository secrets;
  private final SecretBox box;

  public SecretValues(SecretRepository secrets, SecretBox box) {
    this.secrets = secrets;
    this.box = box;
  }

  /** A secret that a VM refers to and that cannot be had: gone, or not to be opened here. */
  public static class Unavailable extends RuntimeException {
    public Unavailable(String message) {
      super(message);
    }
  }

  /**
   * Secrets opened at once for a batch of starts.
   *
   * @param values each secret that exists, by name
   * @param unavailable why none can be opened here, or null
   */
  public record Opened(Map<String, String> values, String unavailable) {
    /** The values of {@code names}; {@link Unavailable} names those that are not there. */
    public Map<String, String> of(Collection<String> names) {
      if (names.isEmpty()) {
        return Map.of();
      }
      if (unavailable != null) {
        throw new Unavailable(unavailable);
      }
      TreeSet<String> gone = new TreeSet<>(names);
      gone.removeAll(values.keySet());
      if (!gone.isEmpty()) {
        throw new Unavailable(
            (gone.size() == 1 ? "secret " : "secrets ")
                + String.join(", ", gone)
                + (gone.size() == 1 ? " does" : " do")
                + " not exist");
      }
      return values;
    }
  }

  /** Each of {@code names} that exists, read and opened in one go. */
  public Opened open(Collection<String> names) {
    if (names.isEmpty()) {
      return new Opened(Map.of(), null);
    }
    if (box.unavailable() != null) {
      return new Opened(Map.of(), box.unavailable());
    }
    Map<String, String> values = new TreeMap<>();
    for (SecretRow row : secrets.findByNameInList(names)) {
      values.put(row.name(), box.open(row.name(), row.sealed()));
    }
    return new Opened(values, null);
  }
}
