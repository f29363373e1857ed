/**
 * The images VMs boot from: the cache on disk, fetched by URL or pulled from an OCI registry, the
 * images held for the controller's placement, and the prefetch of images before any VM needs them.
 */
package dev.rota.agent.images;
