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

  /** Each secret named, by name; {@link Unavailable} names those that are not there. */
  public Map<String, String> of(Collection<String> names) {
    Map<String, String> values = new TreeMap<>();
    if (names.isEmpty()) {
      return values;
    }
    if (box.unavailable() != null) {
      throw new Unavailable(box.unavailable());
    }
    for (SecretRow row : secrets.findByNameInList(names)) {
      values.put(row.name(), box.open(row.name(), row.sealed()));
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
