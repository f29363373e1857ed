package dev.rota.api.accounts;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/** {@code POST /v1/service-accounts}. */
@Serdeable
public record ServiceAccountRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @NotEmpty @Size(max = 8)
        List<
                @NotNull
                @Pattern(
                    regexp = ServiceAccountRequest.ROLE,
                    message = ServiceAccountRequest.ROLE_MESSAGE)
                String>
            roles,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String worker) {
  /** Every role but worker, which goes with a {@code worker} and only with it. */
  public static final String ROLES_BUT_WORKER =
      "compute:read|compute:write|compute:connect|admin:read|admin:write|secrets:write|secrets:use";

  public static final String ROLE = "^(" + ROLES_BUT_WORKER + "|worker)$";
  public static final String ROLE_MESSAGE =
      "must be a role: compute:read, compute:write, compute:connect, admin:read, admin:write,"
          + " secrets:write, secrets:use or worker";
}
