package dev.rota.api;

/** A resource the API shows under its name: {@code /v1/<collection>/<name>}. */
public interface Named {
  String name();
}
