"""The provider client: any OpenAI-compatible endpoint, streamed, retried, with usage and cache facts.

    client = LLMClient.from_config(config, home.root)
    async with client.stream(messages, tools=schemas, on_retry=show) as call:
        async for chunk in call:          # TextChunk, ReasoningChunk, ToolCallChunk, UsageChunk,
            ...                           # RetryChunk (start over), FinishChunk (the message)
    call.message                          # the reply, partial if the task was cancelled

Importing this package does not import `openai` (0.6 s); the first call does.
"""
