package dev.rota.agentapi;

/**
 * Whether a {@code qemu} VM must run confined: each guest's QEMU a user of its own, in a control
 * group of its own, its connections held to its network mode. A worker says whether it confines
 * guests with the label {@link #LABEL}; a VM that requires it asks for that label, as for any
 * other, so that placement only takes workers that do and says so when none does.
 */
public final class GuestIsolation {
  /** The worker label: {@link #CONFINED} or {@code none}. */
  public static final String LABEL = "rota.dev/guest-isolation";

  public static final String CONFINED = "confined";

  /** A VM's {@code isolation}: placed only where guests are confined (the default). */
  public static final String REQUIRED = "required";

  /** A VM's {@code isolation}: placed anywhere that offers {@code qemu}. */
  public static final String OPTIONAL = "optional";

  private GuestIsolation() {}
}
