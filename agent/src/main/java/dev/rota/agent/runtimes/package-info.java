/**
 * The runtimes that run a task: {@code process} (a confined process tree, its resources enforced by
 * cgroups), {@code qemu} (a VM booted from an image or a kernel, behind its own network
 * confinement, watched through QMP and its guest agent) and {@code synthetic} (nothing runs; for
 * load tests).
 */
package dev.rota.agent.runtimes;
