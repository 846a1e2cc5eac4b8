"""Live calls: transcripts streamed utterance by utterance (Twilio Real-Time Transcription, or the vendor-neutral
segment webhook), one incident per call, re-triaged as the words arrive (docs/intake.md#live-calls)."""
