package io.spillway.edge.server; public class EdgeMain { public static void main(String[] a){} }
