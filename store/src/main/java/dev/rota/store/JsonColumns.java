package dev.rota.store;

import io.micronaut.core.type.Argument;
import io.micronaut.serde.ObjectMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;

/** JSON text for the map and list columns; one mapper for all of them. */
@Singleton
public class JsonColumns {
  private final ObjectMapper mapper;

  public JsonColumns(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  String write(Object value) {
    try {
      return mapper.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  <T> T read(String json, Argument<T> type) {
    try {
      return mapper.readValue(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable JSON column: " + json, e);
    }
  }
}
