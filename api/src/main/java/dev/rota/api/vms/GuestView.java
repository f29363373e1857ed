package dev.rota.api.vms;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.agentapi.GuestSpec;
import dev.rota.agentapi.SecretRefs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/**
 * A qemu VM's guest as shown: what it was given, a secret as its name ({@code {"secretRef": …}})
 * and never its value; what it was not given is left out.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Serdeable
public record GuestView(
    @Nullable String kernel,
    @Nullable String initrd,
    @Nullable String kernelArgs,
    @Nullable Object userData,
    @Nullable List<String> sshKeys,
    @Nullable Object startupScript) {

  /** The guest as shown, or null for a VM given none. */
  static GuestView of(@Nullable GuestSpec guest, @Nullable SecretRefs secrets) {
    String userDataSecret = secrets == null ? null : secrets.userData();
    String scriptSecret = secrets == null ? null : secrets.startupScript();
    if (GuestSpec.none(guest) && userDataSecret == null && scriptSecret == null) {
      return null;
    }
    GuestSpec g = guest == null ? GuestSpec.NONE : guest;
    return new GuestView(
        g.kernel(),
        g.initrd(),
        g.kernelArgs(),
        SecretRef.shown(g.userData(), userDataSecret),
        g.sshKeys(),
        SecretRef.shown(g.startupScript(), scriptSecret));
  }
}
