package dev.rota.agent.machine;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The agent's records on disk. */
public final class JsonFiles {
  private JsonFiles() {}

  /**
   * Writes {@code value} to {@code file} whole or not at all: to a file beside it, then moved over
   * it, so that an agent killed mid-write leaves the old record or the new one, never half of one.
   */
  public static void writeWhole(ObjectMapper json, Path file, Object value) throws IOException {
    Path part = file.resolveSibling(file.getFileName() + ".part");
    json.writeValue(part.toFile(), value);
    Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
