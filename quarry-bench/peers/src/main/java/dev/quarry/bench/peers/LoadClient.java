package dev.quarry.bench.peers;

/**
 * One HTTP client under load: it sends the same GET again and again and reads each response's content in full, either
 * through its asynchronous API or through its blocking one. Implementations are thread-safe.
 */
interface LoadClient extends AutoCloseable {
    /**
     * Sends the request without waiting; {@code done} runs once the whole response was read, or the exchange failed,
     * on a thread of the client's choosing.
     */
    void send(Completion done);

    /**
     * Sends the request and waits until the whole response was read.
     *
     * @return the response's status
     * @throws Exception if the exchange failed
     */
    int sendAndWait() throws Exception;

    /** @return what the client can say about its connections and queues, for a run that ended with requests stuck */
    default String state() {
        return toString();
    }

    /** The end of one exchange. */
    @FunctionalInterface
    interface Completion {
        /**
         * @param status the response's status, when {@code failure} is null
         * @param failure why the exchange failed, or null
         */
        void completed(int status, Throwable failure);
    }
}
