it('runs', () => expect(1).toBe(1));
