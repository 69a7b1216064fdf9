"""The least a client does against a real inference server: a plain asyncio loop over aiohttp, nothing else.

Reads request bodies (one JSON object a line) from a file, sends each as POST {url}/chat/completions with
`in_flight` requests at a time, reads every reply as JSON and keeps nothing. Prints the wall seconds from the
first request to the last reply. Run with an interpreter that has aiohttp (the vLLM environment does):

    .cache/vllm-venv/bin/python bench/minimal_client.py --url http://127.0.0.1:PORT/v1 --bodies F --in-flight 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

import aiohttp


async def send_all(url: str, bodies: list[bytes], in_flight: int) -> float:
    """Send every body, `in_flight` at a time; the wall seconds it took."""
    queue = iter(bodies)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer EMPTY"}
    connector = aiohttp.TCPConnector(limit=in_flight)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as session:
        async def worker() -> None:
            for body in queue:
                async with session.post(f"{url}/chat/completions", data=body, headers=headers) as response:
                    reply = await response.json()
                    if response.status != 200 or "choices" not in reply:
                        raise RuntimeError(f"HTTP {response.status}: {str(reply)[:300]}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        return time.perf_counter() - started


def main() -> int:
    """Send and print the wall seconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--bodies", type=Path, required=True)
    parser.add_argument("--in-flight", type=int, default=8)
    args = parser.parse_args()
    bodies = [line.encode() for line in args.bodies.read_text().splitlines() if line.strip()]
    json.loads(bodies[0])
    wall = asyncio.run(send_all(args.url, bodies, args.in_flight))
    print(f"minimal_client_wall {wall:.3f} requests {len(bodies)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
