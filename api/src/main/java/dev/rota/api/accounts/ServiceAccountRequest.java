package dev.rota.api.accounts;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/service-accounts}: the roles it holds in every namespace, and those it holds in
 * single namespaces; at least one.
 */
@Serdeable
public record ServiceAccountRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @Nullable @Size(max = 8)
        List<
                @NotNull
                @Pattern(
                    regexp = ServiceAccountRequest.ROLE,
                    message = ServiceAccountRequest.ROLE_MESSAGE)
                String>
            roles,
    @Nullable @Size(max = 64)
        Map<
                @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE)
                String,
                @NotEmpty @Size(max = 5) List<
                    @NotNull
                    @Pattern(
                        regexp = ServiceAccountRequest.NAMESPACE_ROLE,
                        message = ServiceAccountRequest.NAMESPACE_ROLE_MESSAGE)
                    String>>
            namespaceRoles,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String worker) {
  /** Every role but worker, which goes with a {@code worker} and only with it. */
  public static final String ROLES_BUT_WORKER =
      "compute:read|compute:write|compute:connect|admin:read|admin:write|secrets:write|secrets:use";

  public static final String ROLE = "^(" + ROLES_BUT_WORKER + "|worker)$";

  /** The roles an account may hold in one namespace: those acting on a namespace's objects. */
  public static final String NAMESPACE_ROLE =
      "^(compute:read|compute:write|compute:connect|secrets:write|secrets:use)$";

  public static final String NAMESPACE_ROLE_MESSAGE =
      "must be a role held in a namespace: compute:read, compute:write, compute:connect,"
          + " secrets:write or secrets:use";

  public ServiceAccountRequest {
    roles = roles == null ? List.of() : roles;
    namespaceRoles = namespaceRoles == null ? Map.of() : namespaceRoles;
  }

  public static final String ROLE_MESSAGE =
      "must be a role: compute:read, compute:write, compute:connect, admin:read, admin:write,"
          + " secrets:write, secrets:use or worker";
}
