package dev.rota.control;

/**
 * A VM could not have the volumes it names: one is gone or mounted by another VM, or they are on
 * different workers. Nothing of the VM was stored.
 */
public class VolumesUnavailable extends Refused {
  public VolumesUnavailable(String message) {
    super(message);
  }
}
