package dev.rota.api.vms;

import dev.rota.agentapi.EgressTarget;
import dev.rota.agentapi.NetworkSpec;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code qemu} VM's {@code network}: where its guest may connect to. {@code egress} is {@code
 * internet} (the default: public addresses only), {@code none} (nothing: only its forwarded ports
 * reach it) or {@code allow} (only the CIDRs, addresses and host names of {@code allow}; an {@code
 * allow} list without {@code egress} means {@code allow}).
 */
@Serdeable
// A misspelt field here would be a guest less contained than its user meant: refused, not ignored.
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record NetworkRequest(
    @Nullable
        @Pattern(
            regexp = "^(none|internet|allow)$",
            message = "must be one of \"none\", \"internet\", \"allow\"")
        String egress,
    @Nullable @Size(max = 64) List<@NotNull @Size(max = 253) String> allow) {

  /** The network as the agent takes it, each allowed entry in its canonical form. */
  NetworkSpec spec(String field) {
    boolean listed = allow != null && !allow.isEmpty();
    String mode = egress == null ? (listed ? NetworkSpec.ALLOW : NetworkSpec.INTERNET) : egress;
    if (mode.equals(NetworkSpec.ALLOW) && !listed) {
      throw Problems.badRequest(
          field + "network.allow",
          "is required with egress \"allow\": the CIDRs, addresses or host names the guest may reach");
    }
    if (!mode.equals(NetworkSpec.ALLOW) && listed) {
      throw Problems.badRequest(
          field + "network.allow",
          "is only for egress \"allow\"; egress \"" + mode + "\" takes no list");
    }
    List<String> entries = new ArrayList<>();
    for (int i = 0; listed && i < allow.size(); i++) {
      try {
        entries.add(EgressTarget.parse(allow.get(i)).text());
      } catch (IllegalArgumentException e) {
        throw Problems.badRequest(field + "network.allow[" + i + "]", e.getMessage());
      }
    }
    return new NetworkSpec(mode, entries);
  }
}
