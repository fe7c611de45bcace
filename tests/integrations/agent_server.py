"""A two-step travel agent's model on 127.0.0.1, OpenAI-compatible, for the tests of
``run_tools`` and of golden cases of whole runs. Asked to book a flight, it first calls
``search_flights(to, date)``; given the search's result, it calls ``book_flight(flight,
date)`` with the first flight found; given the booking, it answers in JSON
(``{pnr, flight, status}``). Its behaviours, by words of the question:

- "tomorrow": it searches and books the wrong date (2026-12-02 for 2026-12-01);
- "loop": it searches again at every step, never booking;
- "cancel": its second step calls ``cancel_flight``, a tool the agent does not have.

Each request and the usage it reports (50 prompt tokens, 10 completion tokens) are kept.
"""

from __future__ import annotations

import json
import re

from tests.helpers.http_models import ChatModel


class AgentModel(ChatModel):
    """The two-step agent's model: what it says next is :func:`next_message`'s."""

    def __init__(self) -> None:
        super().__init__(lambda body: (next_message(body["messages"]), "stop"))


def _call(name: str, arguments: dict, step: int) -> dict:
    return {
        "id": f"call_{step}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def next_message(messages: list[dict]) -> dict:
    """What the model says next, given the conversation so far."""
    question = messages[0]["content"]
    results = [m["content"] for m in messages if m["role"] == "tool"]
    city = re.search(r"to (\w+)", question).group(1)
    date = "2026-12-02" if "tomorrow" in question else "2026-12-01"
    step = len(results)
    if step == 0 or "loop" in question:
        call = _call("search_flights", {"to": city, "date": date}, step)
    elif step == 1:
        found = json.loads(results[0])
        flight = found[0]["flight"] if isinstance(found, list) and found else "none"
        name = "cancel_flight" if "cancel" in question else "book_flight"
        call = _call(name, {"flight": flight, "date": date}, step)
    else:
        booking = json.loads(results[1]) if results[1].startswith("{") else {}
        answer = {
            "pnr": booking.get("pnr", "none"),
            "flight": booking.get("flight", "none"),
            "status": "booked" if booking else "failed",
        }
        return {"role": "assistant", "content": json.dumps(answer)}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


class Airline:
    """The agent's environment: the flights it can find and the bookings it holds (its
    state, read as its public attributes)."""

    def __init__(self) -> None:
        self.bookings: list[dict] = []

    def search_flights(self, to: str, date: str) -> list[dict]:
        return [{"flight": f"SK{len(to)}01", "to": to, "date": date}]

    def book_flight(self, flight: str, date: str) -> dict:
        if not flight.startswith("SK"):
            raise ValueError(f"no flight {flight}")
        booking = {"pnr": f"PNR{len(self.bookings) + 1}", "flight": flight, "date": date}
        self.bookings.append(booking)
        return booking
