package dev.rota.api.auth;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * {@code rota.auth.*}.
 *
 * @param enabled whether requests need a token ({@code ROTA_AUTH_ENABLED}); off by default in dev
 *     mode
 * @param allowInsecure lets a production host run with auth off; without it, it refuses to start
 * @param bootstrapAdminToken the first admin's token ({@code ROTA_BOOTSTRAP_ADMIN_TOKEN});
 *     generated and printed once when absent and no admin exists
 */
@ConfigurationProperties("rota.auth")
public record AuthSettings(
    @Bindable(defaultValue = "true") boolean enabled,
    @Bindable(defaultValue = "false") boolean allowInsecure,
    @Nullable String bootstrapAdminToken) {}
