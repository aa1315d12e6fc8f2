package import Foundation
import PostgresNIO

/// What every provider on one PostgreSQL database shares: settings stored once (the admin token), and which of them
/// exports the gauges of the shared queue.
extension PostgresStore {
    package func sharedSetting(_ name: String, proposing proposed: Data) async throws(ProviderError) -> Data {
        let rows = try await rows(
            """
            WITH proposed AS (
                INSERT INTO provider_settings (name, value) VALUES (\(name), \(ByteBuffer(bytes: proposed)))
                ON CONFLICT (name) DO NOTHING RETURNING value)
            SELECT value FROM proposed UNION ALL SELECT value FROM provider_settings WHERE name = \(name) LIMIT 1
            """)
        do {
            guard let value = try rows.first?.decode(Data.self) else { return proposed }
            return value
        } catch {
            throw Self.failure(error)
        }
    }

    package func exportsSharedGauges(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Bool {
        let rows = try await rows(
            """
            SELECT min(owner) FROM provider_heartbeats WHERE seen_at >= now() - make_interval(secs => \(staleAfter))
            """)
        do {
            // No heartbeat yet (the first moments of a start): export, rather than no process at all.
            guard let first = try rows.first?.decode(String?.self) else { return true }
            return first == owner
        } catch {
            throw Self.failure(error)
        }
    }
}

/// Work announced between the providers on one database (PostgreSQL's `LISTEN`/`NOTIFY`): a notification created
/// through one provider wakes every provider's idle workers at once, so a broadcast's deliveries are leased by all
/// of them rather than by the one that took the API call before the others' next poll.
extension PostgresStore {
    package func announceWork() async {
        _ = try? await rows("SELECT pg_notify(\(workChannel), '')", within: .seconds(2))
    }

    package func workAnnouncements() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (configuration, channel, logger) = (listenerConfiguration, workChannel, logger)
        let listener = Task {
            // A connection of its own: LISTEN lasts as long as the connection, which the pool would hand to others.
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration, id: 1, logger: logger)
                    defer { Task { try? await connection.close() } }
                    try await connection.listen(on: channel) { notifications in
                        for try await _ in notifications { continuation.yield() }
                    }
                } catch {
                    // The database restarting, or the connection lost: the workers still poll; listen again soon.
                    if !Task.isCancelled {
                        logger.debug("listening for other providers' work failed", metadata: ["error": "\(error)"])
                    }
                }
                try? await Task.sleep(for: .seconds(1))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    package func liveProviders(staleAfter: TimeInterval) async throws(ProviderError) -> Int {
        let rows = try await rows(
            """
            SELECT count(*) FROM provider_heartbeats WHERE seen_at >= now() - make_interval(secs => \(staleAfter))
            """)
        do {
            return max(1, try rows.first?.decode(Int.self) ?? 1)
        } catch {
            throw Self.failure(error)
        }
    }
}
