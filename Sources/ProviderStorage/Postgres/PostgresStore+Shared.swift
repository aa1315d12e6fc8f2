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
