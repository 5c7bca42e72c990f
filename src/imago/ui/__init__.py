"""Interfaces for people: terminal play over the engine core."""
