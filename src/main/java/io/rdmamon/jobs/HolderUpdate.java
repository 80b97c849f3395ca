package io.rdmamon.jobs;

/** A change of one job's hold on one device or node; {@code holder} null means the job let it go. */
public record HolderUpdate(String uid, Holder holder) {
}
