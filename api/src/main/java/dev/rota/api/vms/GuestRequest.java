package dev.rota.api.vms;

import dev.rota.agentapi.GuestSpec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Size;

/**
 * A {@code qemu} VM's {@code guest}: a kernel to boot directly (with its initrd and command line)
 * instead of the image's boot loader, and cloud-init user data. Kernel and initrd are image
 * addresses like {@code image}.
 */
@Serdeable
// A misspelt field here would be a guest booted without what the user meant: refused, not ignored.
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record GuestRequest(
    @Nullable @Size(max = 2048) String kernel,
    @Nullable @Size(max = 2048) String initrd,
    @Nullable @Size(max = 4096) String kernelArgs,
    @Nullable @Size(max = GuestRequest.MAX_USER_DATA) String userData) {
  /** 64 KiB: what a NoCloud seed is commonly given, and far below a row's or a payload's bounds. */
  public static final int MAX_USER_DATA = 65_536;

  /** As the agent takes it: an empty string is no value. */
  GuestSpec spec() {
    return new GuestSpec(value(kernel), value(initrd), value(kernelArgs), value(userData));
  }

  private static String value(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
