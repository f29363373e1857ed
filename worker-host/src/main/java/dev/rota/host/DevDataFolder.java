package dev.rota.host;

import java.nio.file.Path;

/**
 * Dev mode's data folder ({@code ROTA_DATA_DIR}, default {@code .rota-dev}), made absolute and
 * created before the host's context starts: the database, the agents, the local Temporal server and
 * the secrets' key live in it. Given to the context as a bean in dev mode only.
 */
public record DevDataFolder(Path path) {}
