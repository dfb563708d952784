// Placeholder until the consumer-group model lands (owned by the consumer-group work).
export class ConsumerGroup {}
