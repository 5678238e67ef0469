package io.spillway.testkit; final class Placeholder {}
