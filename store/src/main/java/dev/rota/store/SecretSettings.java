package dev.rota.store;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;

/**
 * {@code rota.secrets.*}: the key secrets are sealed with (docs/security.md).
 *
 * @param key 32 bytes in base64; null or blank: read from {@code keyFile}
 * @param keyFile a file holding that key
 */
@ConfigurationProperties("rota.secrets")
public record SecretSettings(@Nullable String key, @Nullable String keyFile) {}
