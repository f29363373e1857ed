package dev.rota.api.vms;

import dev.rota.agentapi.GuestSpec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A {@code qemu} VM's {@code guest}: a kernel to boot directly (with its initrd and command line)
 * instead of the image's boot loader, and what cloud-init gives the guest: user data, SSH public
 * keys for its default user, a startup script run once at its first boot. Kernel and initrd are
 * image addresses like {@code image}.
 */
@Serdeable
// A misspelt field here would be a guest booted without what the user meant: refused, not ignored.
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record GuestRequest(
    @Nullable @Size(max = 2048) String kernel,
    @Nullable @Size(max = 2048) String initrd,
    @Nullable @Size(max = 4096) String kernelArgs,
    @Nullable Object userData,
    @Nullable @Size(max = 16)
        List<
                @jakarta.validation.constraints.NotNull @Size(max = 8192)
                @jakarta.validation.constraints.Pattern(
                    regexp = GuestRequest.SSH_KEY,
                    message = "must be an OpenSSH public key: ssh-ed25519 AAAA… [comment]")
                String>
            sshKeys,
    @Nullable Object startupScript) {
  /** One line of an OpenSSH {@code authorized_keys}: its type, its key, a comment. */
  public static final String SSH_KEY =
      "^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-nistp(256|384|521)"
          + "|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com)"
          + " [A-Za-z0-9+/]+={0,3}( [^\\r\\n]*)?$";

  /** 64 KiB: what a NoCloud seed is commonly given, and far below a row's or a payload's bounds. */
  public static final int MAX_USER_DATA = 65_536;

  /**
   * As the agent takes it, without what is a secret's (its {@link #userDataSecret} or {@link
   * #startupScriptSecret}): an empty string is no value.
   */
  GuestSpec spec(String field) {
    return new GuestSpec(
        value(kernel),
        value(initrd),
        value(kernelArgs),
        userDataSecret(field) == null ? value((String) userData) : null,
        sshKeys == null || sshKeys.isEmpty() ? null : List.copyOf(sshKeys),
        startupScriptSecret(field) == null ? value((String) startupScript) : null);
  }

  /** The secret that is its user data, or null for a value (or none). */
  String userDataSecret(String field) {
    return userData == null
        ? null
        : SecretRef.nameIn(userData, field + "guest.userData", MAX_USER_DATA);
  }

  /** The secret that is its startup script, or null for a value (or none). */
  String startupScriptSecret(String field) {
    return startupScript == null
        ? null
        : SecretRef.nameIn(startupScript, field + "guest.startupScript", MAX_USER_DATA);
  }

  private static String value(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
